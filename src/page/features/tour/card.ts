import { h, replaceChildren } from "../../chrome/dom";
import type { TourProgress } from "./progress";
import type { TourStep } from "./steps";

/** Everything the step card shows; the card keeps no state of its own. */
export interface TourView {
  active: boolean;
  steps: readonly TourStep[];
  progress: TourProgress;
  /** The last step passed, with its explanation. */
  explained: { step: TourStep; message: string } | null;
  /** What the last attempt on the current step did (wrong), or an aside. */
  attempt: { phase: "wrong" | "aside"; message: string } | null;
  /** Why stored progress was reset, or that it cannot be saved. */
  note: string | null;
  guestReady: boolean;
}

export interface TourActions {
  start(): void;
  restart(): void;
  typeCommand(step: TourStep): void;
  showPanel(id: string): void;
}

const PANEL_TITLES: Record<TourStep["panel"], string> = { proxy: "Proxy", kernel: "Kernel", wire: "Wire" };

/** The step card above the Tour panel's event list: task, hint, outcome, controls. */
export function createTourCard(actions: TourActions): { element: HTMLElement; render(view: TourView): void } {
  const element = h("div", { class: "tour-card", attrs: { "data-testid": "tour-card" } });

  const button = (label: string, testId: string, onClick: () => void, title?: string) =>
    h(
      "button",
      { class: "small", attrs: { type: "button", "data-testid": testId, ...(title ? { title } : {}) }, on: { click: onClick } },
      label,
    );

  const stepList = (view: TourView) =>
    h(
      "ol",
      { class: "tour-steps", attrs: { "aria-label": "Tour steps" } },
      ...view.steps.map((s, i) => {
        const done = view.progress.finished || i < view.progress.stepIndex;
        const current = !view.progress.finished && i === view.progress.stepIndex;
        return h(
          "li",
          {
            class: done ? "done" : current ? "current" : "todo",
            attrs: current ? { "aria-current": "step" } : {},
          },
          `${i + 1}. ${s.title}${done ? " ✓" : ""}`,
        );
      }),
    );

  const explained = (view: TourView) =>
    view.explained
      ? h(
          "div",
          { class: "tour-explained", attrs: { "data-testid": "tour-explained", "data-step": view.explained.step.id } },
          h("strong", {}, `✓ Step ${view.steps.indexOf(view.explained.step) + 1} passed: ${view.explained.step.title}. `),
          view.explained.message,
        )
      : null;

  const typeButton = (view: TourView, step: TourStep) => {
    const el = button(
      "Type it for me",
      "tour-type",
      () => actions.typeCommand(step),
      "Types the command into the guest terminal (you can also type it yourself)",
    );
    el.disabled = !view.guestReady;
    return el;
  };

  const task = (view: TourView, step: TourStep) => {
    const index = view.steps.indexOf(step);
    return h(
      "section",
      { class: "tour-task", attrs: { "data-testid": "tour-step", "data-step": step.id, "aria-label": `Step ${index + 1}` } },
      h("h2", {}, `Step ${index + 1} of ${view.steps.length}: ${step.title}`),
      h("p", {}, step.task),
      h("div", { class: "tour-command" }, h("code", { attrs: { "data-testid": "tour-command" } }, step.command), typeButton(view, step)),
      h("p", { class: "tour-hint" }, step.hint),
      h(
        "p",
        { class: "tour-watch" },
        button(`Show the ${PANEL_TITLES[step.panel]} panel`, "tour-show-panel", () => actions.showPanel(step.panel)),
        " Come back to this Tour tab to read what happened.",
      ),
      view.attempt
        ? h(
            "div",
            { class: `tour-attempt ${view.attempt.phase}`, attrs: { "data-testid": "tour-attempt", "data-outcome": view.attempt.phase } },
            view.attempt.phase === "wrong" ? h("strong", {}, "✗ Not yet. ") : null,
            view.attempt.message,
          )
        : null,
    );
  };

  const finished = (view: TourView) =>
    h(
      "section",
      { class: "tour-task", attrs: { "data-testid": "tour-finished" } },
      h("h2", {}, "Tour finished"),
      h("p", {}, "Every way out was refused, each by the component whose rule it is:"),
      h(
        "ul",
        {},
        ...view.steps.map((s) =>
          h(
            "li",
            {},
            `${s.title}: ${s.expect.kind === "proxy" ? s.expect.code : s.expect.kind === "kernel" ? s.expect.result : s.expect.rcodeName} by ${s.expect.by === "proxy" ? "the proxy" : "the kernel"} (verdict table, row ${s.seedRow}).`,
          ),
        ),
      ),
    );

  const render = (view: TourView) => {
    const step = view.progress.finished ? null : (view.steps[view.progress.stepIndex] ?? null);
    element.dataset.step = view.active ? (step?.id ?? "finished") : "";
    const note = view.note ? h("p", { class: "tour-note", role: "note", attrs: { "data-testid": "tour-note" } }, view.note) : null;
    if (!view.active) {
      replaceChildren(
        element,
        h("div", { class: "tour-head" }, h("strong", {}, "Guided tour")),
        note,
        h(
          "p",
          {},
          "Four short steps for security trainees: try to get data out of the guest the ways an agent would (a paste site, an IP address, a direct connect, DNS), and see which component refuses each and why. You type the commands; the tour reads the outcome from the log.",
        ),
        button("Start the tour", "tour-start", actions.start),
      );
      return;
    }
    replaceChildren(
      element,
      h(
        "div",
        { class: "tour-head" },
        h("strong", {}, "Guided tour"),
        h("span", { class: "tour-count" }, step ? `step ${view.progress.stepIndex + 1} of ${view.steps.length}` : "finished"),
        button("Restart tour", "tour-restart", actions.restart),
      ),
      stepList(view),
      note,
      explained(view),
      step ? task(view, step) : finished(view),
      view.guestReady
        ? null
        : h("p", { class: "tour-hint" }, "The guest is still starting; the terminal takes commands once its prompt appears."),
    );
  };

  return { element, render };
}
