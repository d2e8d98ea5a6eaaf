import { fromBase64, toBase64 } from "../bytes";

/** What a share link carries (issue 11): enough inputs to replay the same verdicts. */
export interface ShareState {
  harness: string | null;
  /** Canonical policy JSON, only when it differs from the default. */
  policy: string | null;
  scenarios: string[];
  /** The sender's verdict sequence (`code:by,…`), when small enough to carry. */
  expect: string | null;
}

const MAX_EXPECT = 1500;

const toBase64Url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));

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
  if (state.policy) {
    const packed = await pipe(new TextEncoder().encode(state.policy), new CompressionStream("deflate-raw"));
    url.searchParams.set("policy", toBase64Url(packed));
  }
  if (state.scenarios.length > 0) url.searchParams.set("scenarios", state.scenarios.join(","));
  if (state.expect && state.expect.length <= MAX_EXPECT) url.searchParams.set("expect", state.expect);
  return url.href;
}

/** Reads a share state from page URL parameters; malformed parts are dropped with a reason. */
export async function readShareState(params: URLSearchParams): Promise<{ state: ShareState; problems: string[] }> {
  const problems: string[] = [];
  let policy: string | null = null;
  const packed = params.get("policy");
  if (packed) {
    try {
      policy = new TextDecoder("utf-8", { fatal: true }).decode(await pipe(fromBase64Url(packed), new DecompressionStream("deflate-raw")));
    } catch (error) {
      problems.push(`the link's policy could not be decoded (${(error as Error).message}); the default policy stays`);
    }
  }
  const scenarios = (params.get("scenarios") ?? "")
    .split(",")
    .filter((s) => s !== "")
    .filter((s) => {
      const ok = /^[a-z0-9-]{1,40}$/.test(s);
      if (!ok) problems.push(`ignored a malformed scenario id in the link`);
      return ok;
    });
  return { state: { harness: params.get("harness"), policy, scenarios, expect: params.get("expect") }, problems };
}
