import type { EventLog } from "../../../log";
import { createEventPanel, type EventPanel } from "../../panels";
import type { FeatureContext } from "../context";
import { bundledLessonIndex, bundledLessonText } from "./bundled";
import { decodeDraft } from "./lesson-core";
import type { LessonRequest } from "./link-params";
import type { LessonProgressStore } from "./progress-store";
import { type LessonSource, lessonFromText, obtainPinnedLesson } from "./source";
import type { IndexEntry } from "./view";

export type Obtained = { ok: true; source: LessonSource } | { ok: false; code: string; reason: string; source: string };

/** The lesson a request names, read from where it lives (a pinned URL, the shipped lessons, a draft link), or why not. */
export async function obtainLesson(ctx: FeatureContext, request: LessonRequest): Promise<Obtained> {
  switch (request.kind) {
    case "url": {
      await ctx.services.orgAllowlist.ready;
      const got = await obtainPinnedLesson(request.ref, {
        cas: ctx.services.cas,
        fetch: ctx.services.fetch,
        orgAllowlist: ctx.services.orgAllowlist.entries(),
      });
      return got.ok ? { ok: true, source: got.lesson } : { ok: false, code: got.code, reason: got.reason, source: "url" };
    }
    case "bundled": {
      const text = await bundledLessonText(request.name);
      if (text === null)
        return {
          ok: false,
          code: "lesson-invalid",
          reason: `no lesson named ${JSON.stringify(request.name)} is shipped with the playground`,
          source: "bundled",
        };
      return { ok: true, source: await lessonFromText(text, "bundled", request.name) };
    }
    case "link": {
      const decoded = await decodeDraft(request.fragment);
      if (!decoded.ok) return { ok: false, code: decoded.code, reason: decoded.reason, source: "link" };
      return { ok: true, source: await lessonFromText(decoded.text, "link", "draft link") };
    }
    case "invalid":
      return { ok: false, code: "lesson-invalid", reason: request.reason, source: "url" };
    case "none":
      return { ok: false, code: "lesson-invalid", reason: "no lesson asked for", source: "url" };
  }
}

/** The shipped lessons with this browser's progress in each. */
export async function readLessonIndex(store: LessonProgressStore): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  for (const listed of await bundledLessonIndex()) {
    const text = await bundledLessonText(listed.name);
    if (text === null) continue;
    // Progress is kept by the lesson's pin (its sha256), so the text is hashed; its title and
    // step count come from the index (a lesson is parsed when it is opened).
    const source = await lessonFromText(text, "bundled", listed.name);
    const saved = store.get(source.pin);
    entries.push({ name: listed.name, title: listed.title, steps: listed.steps, passed: saved?.passed ?? 0 });
  }
  return entries;
}

/** The Lessons panel: the lesson events, one row each. */
export function createLessonsPanel(log: EventLog): EventPanel {
  return createEventPanel(
    {
      id: "lessons",
      title: "Lessons",
      kinds: ["lesson.load", "lesson.step"],
      columns: ["event", "step", "result", "detail"],
      row: (e) => {
        if (e.kind === "lesson.load")
          return e.code
            ? { tone: "refused", cells: ["load", "", e.code, e.reason ?? ""] }
            : { tone: "info", cells: ["load", "", e.source, `${e.title} (${e.steps} steps)`] };
        if (e.kind === "lesson.step")
          return {
            tone: e.result === "passed" ? "ok" : "refused",
            cells: ["step", String(e.step), e.result, e.code ? `${e.code}${e.by ? ` by ${e.by}` : ""}` : e.title],
          };
        return null;
      },
    },
    log,
  );
}

/** Where a published lesson came from, as the card says it: its host. */
export function hostOf(ref: string): string {
  try {
    return new URL(ref).host;
  } catch {
    return "a URL";
  }
}
