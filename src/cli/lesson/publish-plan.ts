import { lessonPin, parseLesson } from "../../lessons";
import { readHost } from "../../policy";

/** One lesson as published: where it lives, the link that opens it pinned, and an iframe for a docs page. */
export interface PublishedLesson {
  file: string;
  title: string;
  pin: string;
  /** `BASE + file + #sha256=PIN`: what `?lesson=` takes. */
  pinnedUrl: string;
  /** The playground link that opens it (top level). */
  link: string;
  /** A ready iframe, 800×500, with `embedder` and `allow="loopback-network"` (Chrome's rule for a relay on loopback). */
  embed: string;
}

export type BaseCheck = { ok: true; base: string } | { ok: false; reason: string };

/**
 * The four hosting requirements a lesson host must meet for every reader (docs/lessons.md,
 * "Publish a lesson"), the ones checked here: https, a host name (never an IP address: no
 * allowlist entry matches one), a public name (a private one is refused before any fetch), and
 * a directory (the allowlist entry is a prefix ending in "/"). A trusted certificate and CORS
 * are the server's: `--serve` shows both, and the page's errors name them.
 */
export function checkPublishBase(text: string): BaseCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `--base ${text} is not a URL (write https://HOST/PATH/)` };
  }
  if (url.protocol !== "https:") return { ok: false, reason: `--base ${text} is not https: the page fetches lessons over https only` };
  const host = readHost(url.hostname);
  if (host.kind === "ip-literal")
    return { ok: false, reason: `--base ${text} names an IP address: use a host name (an address never matches an allowlist entry)` };
  if (host.kind === "private-name") return { ok: false, reason: `--base ${text}: ${host.why}; the page never fetches from it` };
  if (host.kind === "invalid") return { ok: false, reason: `--base ${text}: ${host.reason}` };
  if (url.search || url.hash) return { ok: false, reason: `--base ${text} has a query or fragment` };
  return { ok: true, base: url.href.endsWith("/") ? url.href : `${url.href}/` };
}

const attr = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** Plans one lesson file's publication; an invalid lesson is refused with its first issue. */
export async function publishLesson(
  file: string,
  text: string,
  o: { base: string; playground: string; embedder: string | null },
): Promise<{ ok: true; lesson: PublishedLesson } | { ok: false; reason: string }> {
  const parsed = parseLesson(text);
  if (!parsed.ok) {
    const issue = parsed.issues[0];
    return { ok: false, reason: `${file}:${issue?.line ?? 1}:${issue?.column ?? 1} ${issue?.field ?? ""}: ${issue?.message ?? "invalid"}` };
  }
  const pin = await lessonPin(text);
  const pinnedUrl = `${new URL(file, o.base).href}#sha256=${pin}`;
  const link = new URL(o.playground);
  link.searchParams.set("lesson", pinnedUrl);
  const embed = new URL(link.href);
  embed.searchParams.set("embed", "1");
  embed.searchParams.set("step", "1");
  if (o.embedder !== null) embed.searchParams.set("embedder", o.embedder);
  const iframe = `<iframe width="800" height="500" style="border:0" loading="lazy" allow="loopback-network" title="${attr(parsed.lesson.title)}" src="${attr(embed.href)}"></iframe>`;
  return { ok: true, lesson: { file, title: parsed.lesson.title, pin, pinnedUrl, link: link.href, embed: iframe } };
}
