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
