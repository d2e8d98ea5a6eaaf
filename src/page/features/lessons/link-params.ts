import type { PageLink } from "../../link";

/**
 * What the page's link (src/page/link.ts) asks of the lesson player.
 * - `?lesson=https://…#sha256=…`: a published lesson, pinned (the pin's `#` is encoded in the query);
 * - `?lesson=NAME`: a lesson shipped with the project (lessons/NAME.yaml);
 * - `#lesson-draft=…`: a draft carried whole in the fragment (never sent to a server);
 * - `&step=N` (1-based) starts at that step; `?embed=1` shows the lesson alone, for an iframe;
 * - `&embedder=https://docs.example` restricts the embed's messages to that origin.
 */
export type LessonRequest =
  | { kind: "none" }
  | { kind: "url"; ref: string }
  | { kind: "bundled"; name: string }
  | { kind: "link"; fragment: string }
  | { kind: "invalid"; reason: string };

export interface LessonLink {
  request: LessonRequest;
  /** The step to start at (0-based), when the link names one. */
  step: number | null;
  embed: boolean;
  /**
   * The origin the embed posts its messages to ("*" when the link names none), or null when the
   * link names something that is not an origin: then nothing is posted, and the player says why.
   */
  embedder: string | null;
  /** Why `&embedder=` was refused, shown on the player (null when it was not). */
  embedderProblem: string | null;
}

export const DRAFT_FRAGMENT_KEY = "lesson-draft";
const PIN_FRAGMENT = /^#sha256=[0-9a-fA-F]{64}$/;
const BUNDLED_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function readLessonLink(link: Pick<PageLink, "lesson" | "step" | "embed" | "embedder" | "hash">): LessonLink {
  const { hash } = link;
  const fragment = new URLSearchParams(hash.replace(/^#/, "")).get(DRAFT_FRAGMENT_KEY);
  const raw = (link.lesson ?? "").trim();
  let request: LessonRequest = { kind: "none" };
  if (fragment) request = { kind: "link", fragment };
  // Written unencoded (`?lesson=https://…/a.yaml#sha256=…`), the pin arrives as the page's own fragment.
  else if (raw.startsWith("https://") && !raw.includes("#") && PIN_FRAGMENT.test(hash)) request = { kind: "url", ref: `${raw}${hash}` };
  else if (raw.startsWith("https://")) request = { kind: "url", ref: raw };
  else if (BUNDLED_NAME.test(raw)) request = { kind: "bundled", name: raw };
  else if (raw !== "")
    request = {
      kind: "invalid",
      reason: `lesson=${JSON.stringify(raw.slice(0, 60))} is neither an https URL pinned with #sha256= nor a shipped lesson's name`,
    };
  const stepText = link.step;
  const step = stepText !== null && /^[1-9]\d{0,2}$/.test(stepText) ? Number(stepText) - 1 : null;
  return {
    request,
    step,
    embed: link.embed === "1" || link.embed === "true",
    ...embedderOrigin(link.embedder),
  };
}

/**
 * `?embedder=` as an origin (scheme, host, port); "*" when the link names none (the messages
 * carry only codes, step numbers, titles and item names). A value that is not an http(s)
 * origin is refused, never widened to "*": a typo must not send the messages to any parent.
 */
export function embedderOrigin(value: string | null): { embedder: string | null; embedderProblem: string | null } {
  if (value === null || value === "") return { embedder: "*", embedderProblem: null };
  const shown = JSON.stringify(value.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 80));
  const refused = {
    embedder: null,
    embedderProblem: `embedder=${shown} is not an origin like https://docs.example: this lesson posts no messages to the page around it`,
  };
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" && url.protocol !== "http:") return refused;
    return { embedder: url.origin, embedderProblem: null };
  } catch {
    return refused;
  }
}

/** The page's link carrying a draft lesson in its fragment (the query is dropped: the draft is the whole story). */
export function draftHref(href: string, encoded: string): string {
  const url = new URL(href);
  url.search = "";
  url.hash = `${DRAFT_FRAGMENT_KEY}=${encoded}`;
  return url.href;
}
