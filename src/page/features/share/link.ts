import { sha256Hex, toBase64 } from "../../../bytes";
import { readLinkPolicy } from "../../../lessons";
import { refuse, type Verdict } from "../../../log";
import { type FetchLike, fetchGuarded, parsePinnedUrl } from "../../../resolver";
import { ALLOW_PREFIX_PARAM, MAX_PROPOSED_PREFIXES, type PageLink, proposedPrefixes } from "../../link";

/** What a share link carries: enough inputs to replay the same verdicts. */
export interface ShareState {
  harness: string | null;
  /** Canonical policy JSON, only when it differs from the default. */
  policy: string | null;
  /**
   * Where a policy too large to carry inline is published, pinned: `https://…#sha256=<hex>`.
   * The receiver fetches it and applies it only if the bytes hash to the pin.
   */
  policyRef: string | null;
  scenarios: string[];
  /** The sender's verdict sequence (`code:by,…`), when small enough to carry. */
  expect: string | null;
  /**
   * Org allowlist prefixes the sender uses beyond the default (`allow-prefix=`, repeated).
   * Only a proposal: the receiver sees them and must accept them before any is used.
   */
  allowPrefixes: string[];
}

const MAX_EXPECT = 1500;
/** Above this many characters (deflated, base64url) a policy travels by reference instead. */
export const MAX_INLINE_POLICY = 1500;

/** A policy is small; a published one larger than this is refused while it streams in. */
const MAX_POLICY_BYTES = 1024 * 1024;

/** A policy reference is an https URL pinned the way every harness URL is (`#sha256=`). */
const isPolicyRef = (ref: string) => {
  const pinned = parsePinnedUrl(ref);
  return pinned.ok && pinned.url.startsWith("https://");
};

/** The deflated, base64url form a link carries inline (so the share button can measure it). */
export async function packPolicy(policy: string): Promise<string> {
  return toBase64Url(await pipe(new TextEncoder().encode(policy), new CompressionStream("deflate-raw")));
}

/** The pinned reference for a published policy: its URL plus the sha256 of the exact bytes. */
export async function policyReference(url: string, policyText: string): Promise<string> {
  return `${url.split("#")[0]}#sha256=${await sha256Hex(new TextEncoder().encode(policyText))}`;
}

const toBase64Url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** Builds the page URL for a share state; the policy is deflated and base64url-encoded. */
export async function buildShareUrl(base: string, state: ShareState): Promise<string> {
  const url = new URL(base);
  url.search = "";
  url.hash = "";
  if (state.harness) url.searchParams.set("harness", state.harness);
  if (state.policyRef) url.searchParams.set("policy-ref", state.policyRef);
  else if (state.policy) url.searchParams.set("policy", await packPolicy(state.policy));
  if (state.scenarios.length > 0) url.searchParams.set("scenarios", state.scenarios.join(","));
  if (state.expect && state.expect.length <= MAX_EXPECT) url.searchParams.set("expect", state.expect);
  for (const prefix of state.allowPrefixes.slice(0, MAX_PROPOSED_PREFIXES)) url.searchParams.append(ALLOW_PREFIX_PARAM, prefix);
  return url.href;
}

/** Reads a share state from the page's link; malformed parts are dropped with a reason. */
export async function readShareState(
  link: Pick<PageLink, "harness" | "share" | "allowPrefixes">,
): Promise<{ state: ShareState; problems: string[] }> {
  const problems: string[] = [];
  let policy: string | null = null;
  const packed = link.share.policy;
  if (packed) {
    const read = await readLinkPolicy(packed);
    if (read.ok) policy = read.text;
    else problems.push(`the link's policy could not be decoded (${read.reason}); the default policy stays`);
  }
  const scenarios = (link.share.scenarios ?? "")
    .split(",")
    .filter((s) => s !== "")
    .filter((s) => {
      const ok = /^[a-z0-9-]{1,40}$/.test(s);
      if (!ok) problems.push(`ignored a malformed scenario id in the link`);
      return ok;
    });
  let policyRef: string | null = link.share.policyRef;
  if (policyRef !== null && !isPolicyRef(policyRef)) {
    problems.push("the link's policy-ref is not an https URL pinned with #sha256=<64 hex>; the default policy stays");
    policyRef = null;
  }
  if (link.allowPrefixes.length > MAX_PROPOSED_PREFIXES)
    problems.push(
      `the link proposes more than ${MAX_PROPOSED_PREFIXES} org allowlist prefixes; only the first ${MAX_PROPOSED_PREFIXES} are shown`,
    );
  const allowPrefixes = proposedPrefixes(link.allowPrefixes);
  return { state: { harness: link.harness, policy, policyRef, scenarios, expect: link.share.expect, allowPrefixes }, problems };
}

export type FetchedPolicy = { ok: true; text: string } | { ok: false; verdict: Verdict };

/**
 * Fetches a pinned policy reference under the resolver's fetch rules (https only, no
 * redirects, status 200, a size cap) and checks the pin; fail-closed on any difference.
 */
export async function fetchPinnedPolicy(ref: string, fetchFn: FetchLike): Promise<FetchedPolicy> {
  const pinned = parsePinnedUrl(ref);
  if (!pinned.ok) return { ok: false, verdict: pinned.verdict };
  const fetched = await fetchGuarded(pinned.url, fetchFn, { maxBytes: MAX_POLICY_BYTES });
  if (!fetched.ok) return { ok: false, verdict: fetched.verdict };
  const got = await sha256Hex(fetched.bytes);
  if (got !== pinned.pin)
    return { ok: false, verdict: refuse("hash-mismatch", `the policy's bytes hash to ${got}, the link pins ${pinned.pin}`, "resolver") };
  return { ok: true, text: new TextDecoder().decode(fetched.bytes) };
}
