import { h, replaceChildren } from "../../chrome/dom";
import { renderMarkdown } from "./markdown";
import type { PendingReplay } from "./player-machine";

/** One step as the player shows it. */
export interface StepView {
  title: string;
  text: string;
  type: "task" | "demo";
  run: string | null;
  hint: string | null;
  solve: string | null;
  /** What Show me (a task) or Run (a demo) types: src/lessons' stepCommand. */
  command: string | null;
}

/** What the last judged command of the current (or just passed) step produced. */
export interface AttemptView {
  result: "passed" | "failed";
  step: number;
  /** One sentence: what happened, which component decided. */
  explanation: string;
  /** The verdict that decided ("host-not-allowed by proxy"), when there was one. */
  verdict: string | null;
  /** The step's `explain` (passed) or `hint` (failed). */
  note: string | null;
  unmet: string[];
}

export interface IndexEntry {
  name: string;
  title: string;
  steps: number;
  passed: number;
}

export interface PlayerState {
  lesson: { title: string; summary: string | null; pin: string; source: string; steps: StepView[] } | null;
  /** The current step (0-based); equals steps.length when the lesson is done. */
  step: number;
  attempt: AttemptView | null;
  /** Why a lesson did not load, with its code. */
  refusal: { code: string; reason: string } | null;
  note: string | null;
  guestReady: boolean;
  /** "Show me" or Run is typing. */
  typing: boolean;
  index: IndexEntry[];
  /** False while the shipped lessons are still being read. */
  indexReady: boolean;
  draft: { yaml: string; link: string | null; problem: string | null } | null;
  /** A lesson from a link, shown while the reader reads its card: nothing of it has run. */
  pending: { title: string; steps: string[] } | null;
  /** A resume of a lesson from a link or a URL, waiting for the reader's click (its commands listed). */
  replay: PendingReplay | null;
}

/** The player before any lesson: nothing open, the guest not up yet, `note` shown (a problem with the page's storage or embedder). */
export const emptyPlayerState = (note: string | null): PlayerState => ({
  lesson: null,
  step: 0,
  attempt: null,
  refusal: null,
  note,
  guestReady: false,
  typing: false,
  index: [],
  indexReady: false,
  draft: null,
  pending: null,
  replay: null,
});

export interface PlayerActions {
  showMe(): void;
  runDemo(): void;
  /** Types the pending resume (the reader's consent to its listed commands). */
  replay(): void;
  restart(): void;
  close(): void;
  open(name: string): void;
  saveAsLesson(): void;
  download(yaml: string): void;
}

const titled = (element: HTMLElement, title: string) => {
  element.title = title;
  return element;
};

const shortPin = (pin: string) => `${pin.slice(0, 12)}…`;

const button = (label: string, testid: string, onClick: () => void, disabled = false) => {
  const b = h("button", { class: "small", attrs: { type: "button", "data-testid": testid }, on: { click: onClick } }, label);
  b.disabled = disabled;
  return b;
};

const indexView = (state: PlayerState, actions: PlayerActions) =>
  h(
    "div",
    { class: "lesson-index", attrs: { "data-testid": "lesson-index" } },
    h("h2", {}, "Lessons shipped with the playground"),
    state.index.length === 0
      ? h("p", {}, state.indexReady ? "No lessons are shipped with this build." : "Loading the list…")
      : h(
          "ol",
          {},
          ...state.index.map((e) =>
            h(
              "li",
              { attrs: { "data-lesson": e.name } },
              h("button", { class: "link", attrs: { type: "button" }, on: { click: () => actions.open(e.name) } }, e.title),
              h(
                "span",
                { class: "lesson-index-progress" },
                e.passed === 0 ? ` ${e.steps} steps` : e.passed >= e.steps ? " ✓ done" : ` ${e.passed}/${e.steps} steps`,
              ),
            ),
          ),
        ),
  );

const draftView = (draft: NonNullable<PlayerState["draft"]>, actions: PlayerActions) => {
  const text = h("textarea", {
    class: "lesson-draft-yaml",
    attrs: { readonly: "", rows: "10", spellcheck: "false", "aria-label": "Draft lesson (YAML)", "data-testid": "lesson-draft-yaml" },
  });
  text.value = draft.yaml;
  return h(
    "div",
    { class: "lesson-draft" },
    h(
      "p",
      {},
      "A draft lesson: one step per command you ran, its expect filled from what the log recorded. Edit it, then check it with npx tab lesson check.",
    ),
    text,
    h(
      "div",
      { class: "lesson-actions" },
      button("Copy", "lesson-draft-copy", () => void navigator.clipboard?.writeText(draft.yaml).catch(() => undefined)),
      button("Download lesson.yaml", "lesson-draft-download", () => actions.download(draft.yaml)),
      draft.link
        ? h("a", { class: "lesson-draft-link", attrs: { href: draft.link, "data-testid": "lesson-draft-link" } }, "Draft link")
        : null,
    ),
    draft.problem ? h("p", { class: "lesson-problem" }, draft.problem) : null,
  );
};

const attemptView = (attempt: AttemptView) =>
  h(
    "div",
    {
      class: `lesson-attempt lesson-${attempt.result}`,
      role: "status",
      attrs: { "data-testid": "lesson-attempt", "data-result": attempt.result, "data-step": String(attempt.step + 1) },
    },
    h(
      "p",
      {},
      h("strong", {}, attempt.result === "passed" ? `✓ Step ${attempt.step + 1} passed. ` : `✗ Step ${attempt.step + 1}: not yet. `),
      attempt.explanation,
    ),
    attempt.verdict ? h("p", { class: "lesson-verdict", attrs: { "data-testid": "lesson-verdict" } }, `Decided: ${attempt.verdict}`) : null,
    attempt.unmet.length > 0 ? h("ul", { class: "lesson-unmet" }, ...attempt.unmet.map((u) => h("li", {}, u))) : null,
    attempt.note
      ? h(
          "div",
          {
            class: attempt.result === "passed" ? "lesson-explain" : "lesson-hint",
            attrs: { "data-testid": `lesson-${attempt.result === "passed" ? "explain" : "hint"}` },
          },
          ...renderMarkdown(document, `${attempt.result === "passed" ? "" : "Hint: "}${attempt.note}`),
        )
      : null,
  );

const stepView = (state: PlayerState, step: StepView, actions: PlayerActions) =>
  h(
    "div",
    { class: "lesson-step", attrs: { "data-testid": "lesson-step" } },
    h("h2", {}, `${state.step + 1}. ${step.title}`),
    ...renderMarkdown(document, step.text),
    step.type === "demo" && step.run ? h("pre", { class: "lesson-command" }, step.run) : null,
    h(
      "div",
      { class: "lesson-actions" },
      step.type === "demo" && step.run ? button("Run", "lesson-run-demo", actions.runDemo, !state.guestReady || state.typing) : null,
      step.command
        ? titled(
            button("Show me", "lesson-show-me", actions.showMe, !state.guestReady || state.typing),
            // The button says exactly what it types (docs/decisions/0028): a lesson may come from a stranger.
            `Types into your guest: ${step.command}`,
          )
        : null,
      state.guestReady ? null : h("span", { class: "lesson-wait" }, "the guest is starting…"),
    ),
  );

/** The resume of a lesson from a link: what it would type, shown in full, typed only on its button (docs/decisions/0028). */
const replayView = (replay: PendingReplay, actions: PlayerActions) => {
  const commands = [...replay.setup, ...replay.commands];
  return h(
    "div",
    { class: "lesson-replay", attrs: { "data-testid": "lesson-replay-offer" } },
    h("p", {}, `To restore step ${replay.step + 1}, the button types these into your guest, in order:`),
    h(
      "ol",
      { class: "lesson-replay-commands", attrs: { "data-testid": "lesson-replay-commands" } },
      ...commands.map((c) => h("li", {}, h("code", {}, c))),
    ),
    h(
      "div",
      { class: "lesson-actions" },
      button(
        `Replay ${commands.length} ${commands.length === 1 ? "command" : "commands"} to restore step ${replay.step + 1}`,
        "lesson-replay",
        actions.replay,
      ),
    ),
  );
};

const lessonView = (state: PlayerState, lesson: NonNullable<PlayerState["lesson"]>, actions: PlayerActions) => {
  const total = lesson.steps.length;
  const done = state.step >= total;
  const step = done ? null : lesson.steps[state.step]!;
  return h(
    "div",
    { class: "lesson-run", attrs: { "data-testid": "lesson-run", "data-step": String(state.step + 1), "data-done": String(done) } },
    h(
      "div",
      { class: "lesson-head" },
      h("strong", { class: "lesson-title" }, lesson.title),
      h(
        "span",
        { class: "lesson-count", attrs: { "data-testid": "lesson-progress" } },
        done ? `done: ${total} of ${total} steps` : `step ${state.step + 1} of ${total}`,
      ),
      button("Restart", "lesson-restart", actions.restart),
      button("Close", "lesson-close", actions.close),
    ),
    h(
      "ol",
      { class: "lesson-steps" },
      ...lesson.steps.map((s, i) =>
        h(
          "li",
          { class: i < state.step ? "lesson-step-passed" : i === state.step ? "lesson-step-current" : "" },
          `${i < state.step ? "✓ " : ""}${s.title}`,
        ),
      ),
    ),
    h("p", { class: "lesson-pin", title: lesson.pin }, `${lesson.source} · sha256 ${shortPin(lesson.pin)}`),
    state.step === 0 && lesson.summary ? h("div", { class: "lesson-summary" }, ...renderMarkdown(document, lesson.summary)) : null,
    state.replay && state.replay.step === state.step ? replayView(state.replay, actions) : null,
    step
      ? stepView(state, step, actions)
      : h("p", { class: "lesson-done", attrs: { "data-testid": "lesson-done" } }, "Lesson complete: every step passed."),
    state.attempt ? attemptView(state.attempt) : null,
  );
};

/** The Lessons panel's card: the lesson and its current step, or the index of shipped lessons. */
export function createPlayerView(actions: PlayerActions): { element: HTMLElement; render(state: PlayerState): void } {
  const element = h("section", { class: "lesson-card", attrs: { "aria-label": "Lesson", "data-testid": "lesson-card" } });
  return {
    element,
    render(state) {
      replaceChildren(
        element,
        state.refusal
          ? h(
              "p",
              { class: "lesson-refusal", role: "alert", attrs: { "data-testid": "lesson-refusal", "data-code": state.refusal.code } },
              h("strong", {}, `The lesson was not loaded (${state.refusal.code}). `),
              state.refusal.reason,
            )
          : null,
        state.note ? h("p", { class: "lesson-note" }, state.note) : null,
        state.pending && !state.lesson
          ? h(
              "p",
              { class: "lesson-note", attrs: { "data-testid": "lesson-pending" } },
              `“${state.pending.title}” (${state.pending.steps.length} steps) waits for your answer on the card above: nothing of it has run.`,
            )
          : state.lesson
            ? lessonView(state, state.lesson, actions)
            : indexView(state, actions),
        h("div", { class: "lesson-actions lesson-authoring" }, button("Save as lesson", "lesson-save", actions.saveAsLesson)),
        state.draft ? draftView(state.draft, actions) : null,
      );
    },
  };
}
