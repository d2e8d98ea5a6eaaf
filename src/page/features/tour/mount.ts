import "./tour.css";
import type { GuestPort } from "../../../console";
import { localTextStore } from "../../local-text-store";
import { createEventPanel, type Tone } from "../../panels";
import type { PageContext } from "../context";
import { createTourCard, type TourView } from "./card";
import { createTourMachine, type TourUpdate } from "./machine";
import { loadProgress, saveProgress, TOUR_START, TOUR_STORAGE_KEY } from "./progress";
import { TOUR_STEPS, type TourStep } from "./steps";

const TONES: Record<TourUpdate["phase"], Tone> = {
  start: "info",
  passed: "ok",
  wrong: "refused",
  finished: "ok",
  restart: "info",
  aside: "warn",
};

/**
 * The guided training tour. The trainee types each step's command in the guest
 * terminal; the tour judges the outcome events on the log (./judge.ts), explains
 * which component refused and why (its row of the verdict table), and moves on. Progress is kept in
 * localStorage; `?tour=1` opens the Tour tab and starts it.
 */
export function mount(ctx: PageContext): void {
  const { log } = ctx;
  const store = localTextStore(TOUR_STORAGE_KEY);
  const loaded = loadProgress(store.read(), TOUR_STEPS);
  const machine = createTourMachine(TOUR_STEPS, loaded.progress ?? TOUR_START);
  const wanted = ctx.link.tour;
  let active = loaded.progress !== null || wanted;
  let guest: GuestPort | null = null;
  const view: Omit<TourView, "progress" | "active" | "guestReady"> = {
    steps: TOUR_STEPS,
    explained: null,
    attempt: null,
    note: loaded.problem,
  };

  const start = () => {
    active = true;
    apply(machine.announce(false));
  };
  const restart = () => {
    active = true;
    apply(machine.restart());
  };
  const card = createTourCard({
    start,
    restart,
    typeCommand: (step: TourStep) => {
      const g = guest;
      if (!g) return;
      // Through the console driver: it waits for a command already running, then types this one.
      void ctx.turns.take(() => g.driver.run(step.command)).catch(() => undefined);
      // Give the keyboard back to the terminal (xterm listens on its helper textarea).
      ctx.layout.terminalBox.querySelector("textarea")?.focus();
    },
    showPanel: (id) => ctx.selectPanel(id),
  });
  const render = () => card.render({ ...view, active, progress: machine.progress, guestReady: guest !== null });

  const persist = () => {
    if (!store.write(saveProgress(machine.progress, TOUR_STEPS)) && view.note === null)
      view.note = "This browser does not let the page save the tour's progress: it lasts until you leave the page.";
  };

  function apply(updates: TourUpdate[]): void {
    for (const update of updates) {
      const step = TOUR_STEPS.find((s) => s.id === update.step);
      if (update.phase === "aside") view.attempt = { phase: "aside", message: update.message };
      if (update.phase === "wrong") view.attempt = { phase: "wrong", message: update.message };
      if (update.phase === "passed" && step) {
        view.explained = { step, message: update.message };
        view.attempt = null;
      }
      if (update.phase === "restart") {
        view.explained = null;
        view.attempt = null;
        view.note = null;
      }
      if (update.phase !== "aside") {
        const { phase, message } = update;
        // Appended after the current dispatch, so every listener sees the outcome event first.
        queueMicrotask(() => log.append({ kind: "tour.step", step: update.step, phase, message }));
      }
    }
    if (updates.some((u) => u.phase === "passed" || u.phase === "wrong")) ctx.selectPanel("tour");
    persist();
    render();
  }

  const panel = createEventPanel(
    {
      id: "tour",
      title: "Tour",
      kinds: ["tour.step"],
      columns: ["phase", "step", "message"],
      row: (e) => (e.kind === "tour.step" ? { tone: TONES[e.phase], cells: [e.phase, e.step, e.message] } : null),
    },
    log,
  );
  panel.addHeader(card.element);
  ctx.addPanel(panel);

  if (loaded.problem) log.append({ kind: "note", level: "warning", source: "tour", message: loaded.problem });
  if (active) apply(machine.announce(loaded.progress !== null && loaded.problem === null));
  else render();
  if (wanted) ctx.selectPanel("tour");

  log.subscribe((event) => {
    if (!active) return;
    const updates = machine.feed(event);
    if (updates.length > 0) apply(updates);
  });
  ctx.guest.then(
    (g) => {
      guest = g;
      render();
    },
    () => undefined, // the boot bar reports it
  );

  ctx.expose("tour", {
    state: () => ({ active, step: machine.current?.id ?? null, finished: machine.progress.finished }),
    start,
    restart,
  });
}
