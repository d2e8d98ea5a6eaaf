import { z } from "zod";

/**
 * The page's link, read once: the playground parses `location.href` into a `PageLink` and
 * hands it to the services (`services.link`) and to every feature (`ctx.link`). A feature that
 * needs a new `?name=` adds its field here; nothing else on the page reads `location` for its
 * parameters, and writing the URL (share links, "Boot fresh") goes through `link.with(...)`.
 */
export interface PageLink {
  /** The whole URL as loaded: the base for the sample bundle, share links and drafts. */
  href: string;
  /** The fragment, with its `#` ("" when none): a lesson draft or an unencoded lesson pin. */
  hash: string;
  /** `?harness=`: the harness reference, its `#sha256=` pin re-attached (see `harnessFromHref`). */
  harness: string | null;
  /** `?run=1`: run the harness's agent once the page is up. */
  run: boolean;
  /** `?fixtures=samples`: answer the resolver's remote fetches from the bundled recordings. */
  fixtures: "samples" | null;
  /** `?embed=…` as written ("" when present without a value, null when absent); each reader says which values turn it on. */
  embed: string | null;
  /** `?scenario=`: the verdict table's row an embed shows. */
  scenario: string | null;
  /** `?tour=1`: start the guided tour. */
  tour: boolean;
  /** `?boot=fresh`: boot the image cold instead of restoring a saved state. */
  boot: "fresh" | null;
  /** `?net=v86-fetch`: v86's own fetch backend instead of the page's peer (bench/wire only). */
  net: "v86-fetch" | null;
  /** `?relay=`: the Wisp relay for this visit, as written (the relay setting parses it). */
  relay: string | null;
  /** A share link's parts, as written: `?policy=` (packed), `?policy-ref=`, `?scenarios=`, `?expect=`. */
  share: { policy: string | null; policyRef: string | null; scenarios: string | null; expect: string | null };
  /** `?allow-prefix=` (repeated): org allowlist prefixes proposed, as written; `proposedPrefixes` cleans them. */
  allowPrefixes: string[];
  /** `?lesson=`, `&step=`, `&embedder=`: what the lesson player opens (its own reader parses them). */
  lesson: string | null;
  step: string | null;
  embedder: string | null;
  /** The same page with these parameters set (a string) or removed (null), everything else kept. */
  with(changes: Readonly<Record<string, string | null>>): string;
}

/** `?harness=sample` and the "Resolve the sample" button: the sample bundle's default harness. */
export const SAMPLE = "sample";

/** The link parameter carrying one proposed org allowlist prefix (repeated for several). */
export const ALLOW_PREFIX_PARAM = "allow-prefix";
/** A link proposes a handful of prefixes at most; more are dropped with a reason. */
export const MAX_PROPOSED_PREFIXES = 8;

const text = z.string().nullable();
const LinkParams = z.object({
  harness: text,
  run: text.transform((v) => v === "1"),
  fixtures: z.literal("samples").nullable().catch(null),
  embed: text,
  scenario: text,
  tour: text.transform((v) => v === "1"),
  boot: z.literal("fresh").nullable().catch(null),
  net: z.literal("v86-fetch").nullable().catch(null),
  relay: text,
  share: z.object({ policy: text, policyRef: text, scenarios: text, expect: text }),
  allowPrefixes: z.array(z.string()),
  lesson: text,
  step: text,
  embedder: text,
});

/** Reads the page's link: every parameter any part of the page reads, typed. */
export function readPageLink(href: string): PageLink {
  const { harness, params } = harnessFromHref(href);
  const hashAt = href.indexOf("#");
  const fields = LinkParams.parse({
    harness,
    run: params.get("run"),
    fixtures: params.get("fixtures"),
    embed: params.get("embed"),
    scenario: params.get("scenario"),
    tour: params.get("tour"),
    boot: params.get("boot"),
    net: params.get("net"),
    relay: params.get("relay"),
    share: {
      policy: params.get("policy"),
      policyRef: params.get("policy-ref"),
      scenarios: params.get("scenarios"),
      expect: params.get("expect"),
    },
    allowPrefixes: params.getAll(ALLOW_PREFIX_PARAM),
    lesson: params.get("lesson"),
    step: params.get("step"),
    embedder: params.get("embedder"),
  });
  return {
    ...fields,
    href,
    hash: hashAt === -1 ? "" : href.slice(hashAt),
    with(changes) {
      const url = new URL(href);
      for (const [name, value] of Object.entries(changes)) {
        if (value === null) url.searchParams.delete(name);
        else url.searchParams.set(name, value);
      }
      return url.href;
    },
  };
}

/**
 * The prefixes a link proposes, as written (the allowlist checks each before showing it): each
 * once, empty ones skipped, at most `MAX_PROPOSED_PREFIXES`. Read before any feature mounts
 * (src/page/services), so a link's resolve waits for the answer.
 */
export function proposedPrefixes(written: readonly string[]): string[] {
  return [...new Set(written.map((p) => p.trim()))].filter((p) => p !== "").slice(0, MAX_PROPOSED_PREFIXES);
}

/**
 * The harness a page link asks for (`?harness=…`), read from the whole `location.href`.
 *
 * The share button must produce the encoded form: `?harness=` + encodeURIComponent(pinnedUrl),
 * so the pin travels as `%23sha256=…` inside the query and the page's own fragment stays free
 * (see `shareQuery`). A hand-written link often leaves the harness URL unencoded; then the
 * browser splits it at its `#`: the query ends before the pin and the page's fragment holds
 * `sha256=…` (plus anything typed after it, e.g. `&fixtures=samples`). Both are accepted.
 */
export interface HarnessLink {
  /** The harness reference: `sample`, or the URL with its `#sha256=` pin re-attached. */
  harness: string | null;
  /** The query's parameters, plus any `&name=value` that followed a pin in the fragment. */
  params: URLSearchParams;
}

const FRAGMENT_PIN = /^sha256=([0-9a-fA-F]{64})(?:&(.*))?$/s;

export function harnessFromHref(href: string): HarnessLink {
  const hashAt = href.indexOf("#");
  const beforeHash = hashAt === -1 ? href : href.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : href.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf("?");
  const query = queryAt === -1 ? "" : beforeHash.slice(queryAt + 1);

  const params = new URLSearchParams();
  let harness: string | null = null;
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = decodeLoosely(eq === -1 ? pair : pair.slice(0, eq));
    const raw = eq === -1 ? "" : pair.slice(eq + 1);
    // The harness value is decoded without `+` → space: a URL's `+` is a literal plus.
    const value = name === "harness" ? decodeLoosely(raw) : decodeLoosely(raw.replace(/\+/g, " "));
    params.append(name, value);
    if (name === "harness" && harness === null) harness = value.trim() === "" ? null : value.trim();
  }

  const pinned = FRAGMENT_PIN.exec(fragment);
  if (pinned && harness !== null && harness !== "sample" && !harness.includes("#")) {
    harness = `${harness}#sha256=${pinned[1]}`;
    for (const [name, value] of new URLSearchParams(pinned[2] ?? "")) if (!params.has(name)) params.append(name, value);
  }
  return { harness, params };
}

/** What the share button should put in the page URL for a harness: `?harness=<encoded>`. */
export function shareQuery(harness: string, extra: Record<string, string> = {}): string {
  const parts = [`harness=${encodeURIComponent(harness)}`];
  for (const [name, value] of Object.entries(extra)) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return `?${parts.join("&")}`;
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray `%` in a hand-typed link: keep it as typed, the resolver judges it
  }
}
