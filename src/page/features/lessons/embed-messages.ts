/**
 * The messages an embedded lesson posts to the page that embeds it (docs/lessons.md,
 * "Embedding"). They carry the lesson's pin, the step's number and title and the verdict
 * code that decided: what the embedding page already knows or could learn by loading the
 * lesson itself, never a command's output or anything typed (an unmet item is named, never
 * quoted: `expectItemName`). So they go to any parent ("*") unless the link names the embedder
 * (`&embedder=https://docs.example`): then only a parent of that origin receives them; an
 * `embedder=` that is not an origin sends nothing (`embedderOrigin`).
 */
export type LessonMessage =
  | { type: "lesson.loaded"; pin: string; title: string; steps: number }
  | { type: "lesson.refused"; code: string; reason: string }
  | { type: "lesson.step-started"; pin: string; step: number; title: string }
  | { type: "lesson.step-passed"; pin: string; step: number; title: string; code: string | null }
  | { type: "lesson.step-failed"; pin: string; step: number; title: string; code: string | null; unmet: string[] }
  | { type: "lesson.done"; pin: string; steps: number };

/** Every message is tagged so an embedding page can tell ours from others on its window. */
export const MESSAGE_SOURCE = "linux-in-a-tab";

export interface MessageTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** The parent to post to, or null when the page is not framed. */
export function embeddingParent(scope: { parent: unknown; self: unknown }): MessageTarget | null {
  return scope.parent !== scope.self && scope.parent !== null ? (scope.parent as MessageTarget) : null;
}

export function createLessonMessenger(target: MessageTarget | null, origin: string): (message: LessonMessage) => void {
  return (message) => {
    if (!target) return;
    try {
      target.postMessage({ source: MESSAGE_SOURCE, ...message }, origin);
    } catch {
      // A parent that went away (or an origin that no longer matches) is not the lesson's problem.
    }
  };
}
