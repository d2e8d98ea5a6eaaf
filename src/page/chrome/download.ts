import { h } from "./dom";

/** How long a download's object URL lives: long enough for the browser to start saving it. */
const REVOKE_AFTER_MS = 60_000;

/**
 * Offers text to the reader as a file named `name`: the page's one download (the lesson draft,
 * the lock file, the log, a policy too large for a link). `parts` may be one text or the
 * chunks of a long one (the log's JSON lines), so a large text is never joined in memory.
 */
export function downloadText(name: string, parts: string | readonly string[], type: string): void {
  const href = URL.createObjectURL(new Blob(typeof parts === "string" ? [parts] : [...parts], { type }));
  const a = h("a", { attrs: { href, download: name } });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), REVOKE_AFTER_MS);
}
