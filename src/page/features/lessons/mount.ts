import "./lessons.css";
import type { WatchedCommand, WatchedGuest } from "../../../console";
import { KERNEL_REPORTS, watchCommands } from "../../../console";
import { judgedOnKernelDecision, LESSON_SETTLE_MS } from "../../../lessons";
import { messageOf } from "../../../platform";
import { downloadText } from "../../chrome/download";
import { localTextStore } from "../../local-text-store";
import type { FeatureContext } from "../context";
import { runOnConsole } from "./console-run";
import { createLessonMessenger, embeddingParent } from "./embed-messages";
import { type LessonRequest, readLessonLink } from "./link-params";
import { createLessonsPanel, readLessonIndex } from "./obtain";
import { leaveLesson, openLesson, type PlayerHost, refuseLesson, runChecks, runSetup, saveAsLesson } from "./player-load";
import { closedPlayer, currentStep, focusesPage, type PlayerEffect, type PlayerModel, updatePlayer } from "./player-machine";
import { createProgressStore, LESSON_PROGRESS_KEY } from "./progress-store";
import { createPlayerView, emptyPlayerState } from "./view";

/** The shipped lesson `?tour=1` opens: the guided tour is a lesson like the others. */
export const TOUR_LESSON = "01-tour";

/** The commands "Save as lesson" drafts from: the newest this many. */
const MAX_HISTORY = 40;

/**
 * The lesson player: loads a lesson (`?lesson=` pinned URL or shipped name, a draft in the
 * fragment, `?tour=1`, or a pick from the index), applies its policy, runs its setup, and
 * judges every command run on the console (typed, "Show me", Run) against the current step
 * from the one event log. The lesson's run is the state machine of ./player-machine.ts; this
 * only wires it to the page: it performs the machine's effects and draws its state.
 */
export function mount(ctx: FeatureContext): void {
  const { log } = ctx;
  const link = readLessonLink(ctx.link);
  const store = createProgressStore(localTextStore(LESSON_PROGRESS_KEY));
  const post = createLessonMessenger(
    link.embed && link.embedder !== null ? embeddingParent(globalThis as unknown as { parent: unknown; self: unknown }) : null,
    link.embedder ?? "*",
  );
  const history: WatchedCommand[] = [];
  let guest: WatchedGuest | null = null;
  let model: PlayerModel = closedPlayer;
  const state = emptyPlayerState(link.embedderProblem ?? store.problem);
  const current = () => (state.lesson && state.step < state.lesson.steps.length ? state.lesson.steps[state.step] : null);
  const view = createPlayerView({
    showMe: () => type(current()?.command, "lesson-show-me"),
    runDemo: () => type(current()?.command, "lesson-demo"),
    replay: () => host.dispatch({ kind: "replay" }),
    restart: () => host.dispatch({ kind: "restart" }),
    close: () => void close(),
    open: (name) => void openLesson(host, { kind: "bundled", name }, null, false),
    saveAsLesson: () => void saveAsLesson(host, history),
    download: (yaml) => downloadText("lesson.yaml", yaml, "application/yaml"),
  });
  const host: PlayerHost = {
    ctx,
    state,
    store,
    post,
    render: () => view.render(state),
    model: () => model,
    setupRecords: new Set<number>(),
    setupRun: Promise.resolve(),
    policy: { before: null, applied: Promise.resolve() },
    dispatch(event) {
      const next = updatePlayer(model, event);
      model = next.state;
      for (const effect of next.effects) perform(host, model, effect);
      state.step = currentStep(model) ?? 0;
      state.attempt = model.attempt;
      state.replay = model.replay ?? null;
      ctx.setMode({ kind: "lesson-focus", on: focusesPage(model) });
      if (event.kind === "restart") state.note = null;
      host.render();
    },
  };
  const panel = createLessonsPanel(log);
  panel.addHeader(view.element);
  ctx.panels.add(panel);

  function type(command: string | null | undefined, act: "lesson-show-me" | "lesson-demo"): void {
    const g = guest;
    if (!g || !command) return;
    state.typing = true;
    host.render();
    void runOnConsole(ctx, g, command, act)
      .catch(() => undefined)
      .finally(() => {
        state.typing = false;
        host.render();
      });
    ctx.terminal.focus();
  }

  async function close(): Promise<void> {
    await leaveLesson(host);
    state.lesson = null;
    host.dispatch({ kind: "close" });
    void refreshIndex();
  }

  async function refreshIndex(): Promise<void> {
    state.index = await readLessonIndex(store);
    state.indexReady = true;
    // Shown only with no lesson open: redrawing an open lesson's step for it would replace the
    // buttons under a visitor's pointer.
    if (!state.lesson) host.render();
  }

  host.render();
  void refreshIndex();
  ctx.guest.then(
    (g) => {
      guest = g;
      state.guestReady = true;
      watchCommands(
        g.console,
        log,
        (window) => {
          if (host.setupRecords.has(window.index)) return;
          history.push(window);
          if (history.length > MAX_HISTORY) history.shift();
          void runChecks(host).then((checks) =>
            host.dispatch({ kind: "command", window: checks.length > 0 ? { ...window, checks } : window }),
          );
        },
        {
          settleLimitMs: LESSON_SETTLE_MS,
          // A step judged on the kernel's word waits for its audit record (it comes on the control line).
          lateReports: () => {
            const index = currentStep(model);
            const step = index === null ? undefined : model.lesson?.lesson.steps[index];
            return step && judgedOnKernelDecision(step) ? KERNEL_REPORTS : null;
          },
        },
      );
      host.render();
    },
    () => undefined, // the boot bar reports it
  );
  const fromLink = link.request.kind === "url" || link.request.kind === "link";
  // `?tour=1` is the tour lesson, played like any shipped lesson (one click, no card).
  const request: LessonRequest = link.request.kind === "none" && ctx.link.tour ? { kind: "bundled", name: TOUR_LESSON } : link.request;
  const opened = request.kind === "none" ? Promise.resolve() : openLesson(host, request, link.step, fromLink);
  opened.catch((error: unknown) => {
    if (fromLink) ctx.consent.withdraw("lesson");
    refuseLesson(host, "lesson-invalid", messageOf(error), "url");
  });

  ctx.expose("lessons", {
    opened,
    state: () => ({
      pin: model.lesson?.pin ?? null,
      step: currentStep(model),
      done: model.lesson !== null && (currentStep(model) ?? 0) >= model.lesson.steps.length,
      refusal: state.refusal,
      history: history.map((w) => w.command),
    }),
    open: (name: string) => openLesson(host, { kind: "bundled", name }, null, false),
    /** Settles once the newest setup or resume typing ended (a test waits for it before Show me). */
    setupDone: () => host.setupRun,
  });
}

/** Performs one effect of the player's machine. */
function perform(host: PlayerHost, model: PlayerModel, effect: PlayerEffect): void {
  const lesson = model.lesson;
  if (effect.kind === "log") host.ctx.log.append(effect.event);
  else if (effect.kind === "post") host.post(effect.message);
  else if (effect.kind === "run-setup") host.setupRun = runSetup(host, effect.commands, effect.replay ?? []).catch(() => undefined);
  else if (effect.kind === "say") host.state.note = effect.text;
  else if (lesson && effect.kind === "forget") host.store.forget(lesson.pin);
  else if (lesson && effect.kind === "persist" && model.progress) {
    const kept = host.store.put(lesson.pin, {
      title: lesson.title,
      steps: lesson.steps.length,
      passed: Math.min(model.progress.step, lesson.steps.length),
      run: model.progress,
      savedAt: Date.now(),
    });
    if (!kept && host.state.note === null)
      host.state.note = "This browser does not let the page save lesson progress: it lasts until you leave the page.";
  }
}
