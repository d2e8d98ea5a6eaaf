import "./lessons.css";
import type { WatchedCommand, WatchedGuest } from "../../../console";
import { watchCommands } from "../../../console";
import { LESSON_SETTLE_MS, setupFailure } from "../../../lessons";
import { confineLinkPolicy } from "../../../policy";
import { describePolicyChange } from "../../../trust";
import { downloadText } from "../../chrome/download";
import { localTextStore } from "../../local-text-store";
import { createEventPanel } from "../../panels";
import type { FeatureContext } from "../context";
import { bundledLessonIndex, bundledLessonText } from "./bundled";
import { runOnConsole } from "./console-run";
import { createLessonMessenger, embeddingParent } from "./embed-messages";
import {
  decodeDraft,
  draftFromWindows,
  encodeDraft,
  type LoadedLesson,
  loadLessonText,
  type PlayerRun,
  refusedLoadEvent,
  startRun,
} from "./lesson-core";
import { draftHref, type LessonRequest, readLessonLink } from "./link-params";
import { createProgressStore, LESSON_PROGRESS_KEY } from "./progress-store";
import { type LessonSource, lessonFromText, obtainPinnedLesson } from "./source";
import { createPlayerView, type PlayerState } from "./view";

/** The shipped lesson `?tour=1` opens: the guided tour is a lesson like the others. */
export const TOUR_LESSON = "01-tour";

/** The commands "Save as lesson" drafts from: the newest this many. */
const MAX_HISTORY = 40;

/**
 * The lesson player: loads a lesson (`?lesson=` pinned URL or shipped name, a draft in the
 * fragment, or a pick from the index), applies its policy, runs its setup, and judges every
 * command run on the console (typed, "Show me", Run) against the current step from the one
 * event log. Each load and each step outcome is an event; progress is kept per lesson pin.
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
  let loaded: LoadedLesson | null = null;
  let run: PlayerRun | null = null;
  /** Records of the setup commands (not judged, not drafted). */
  const setupRecords = new Set<number>();
  let policyBefore: ReturnType<typeof ctx.policy.current> | null = null;

  const state: PlayerState = {
    lesson: null,
    step: 0,
    attempt: null,
    refusal: null,
    note: link.embedderProblem ?? store.problem,
    guestReady: false,
    typing: false,
    index: [],
    indexReady: false,
    draft: null,
    pending: null,
  };

  const view = createPlayerView({
    showMe: () => {
      const command = current()?.command;
      if (command) type(command, "lesson-show-me");
    },
    runDemo: () => {
      const command = current()?.command;
      if (command) type(command, "lesson-demo");
    },
    restart: () => void restart(),
    close: () => void close(),
    open: (name) => void open({ kind: "bundled", name }),
    saveAsLesson: () => void saveAsLesson(),
    download: (yaml) => downloadText("lesson.yaml", yaml, "application/yaml"),
  });
  const render = () => {
    if (run && loaded) {
      state.step = run.step;
    }
    view.render(state);
  };

  const current = () => (state.lesson && state.step < state.lesson.steps.length ? state.lesson.steps[state.step] : null);

  function type(command: string, act: "lesson-show-me" | "lesson-demo"): void {
    const g = guest;
    if (!g) return;
    state.typing = true;
    render();
    void runOnConsole(ctx, g, command, act)
      .catch(() => undefined)
      .finally(() => {
        state.typing = false;
        render();
      });
    ctx.layout.terminalBox.querySelector("textarea")?.focus();
  }

  const panel = createEventPanel(
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
  panel.addHeader(view.element);
  ctx.addPanel(panel);

  // ---- loading --------------------------------------------------------------------------

  async function obtain(
    request: LessonRequest,
  ): Promise<{ ok: true; source: LessonSource } | { ok: false; code: string; reason: string; source: string }> {
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

  async function open(request: LessonRequest, startAt: number | null = null, fromLink = false): Promise<void> {
    state.refusal = null;
    state.attempt = null;
    const got = await obtain(request);
    if (!got.ok) {
      if (fromLink) ctx.consent.withdraw("lesson");
      return refuse(got.code, got.reason, got.source);
    }
    const parsed = loadLessonText(got.source);
    if (!parsed.ok) {
      if (fromLink) ctx.consent.withdraw("lesson");
      return refuse(parsed.code, parsed.reason, got.source.source);
    }
    // Material from a link is shown at once and does nothing until the reader accepts the card
    // (docs/decisions/0028): no policy, no setup, no step judged before then.
    // A lesson that types nothing and leaves the policy as it is has nothing to ask (it is shown,
    // and only the reader's own clicks type its steps' commands).
    const confined = parsed.lesson.policy ? confineLinkPolicy(parsed.lesson.policy) : null;
    const policy = confined ? { changes: describePolicyChange(ctx.policy.current(), confined.policy), refused: confined.refused } : null;
    const effects = parsed.lesson.setup.length > 0 || (policy !== null && (policy.changes.length > 0 || policy.refused.length > 0));
    if (fromLink && !effects) ctx.consent.withdraw("lesson");
    else if (fromLink) {
      state.pending = { title: parsed.lesson.title, steps: parsed.lesson.steps.map((s) => s.title) };
      ctx.selectPanel("lessons");
      render();
      const accepted = await ctx.consent.offer({
        kind: "lesson",
        title: parsed.lesson.title,
        from: got.source.source === "link" ? "a draft link" : hostOf(got.source.ref),
        steps: parsed.lesson.steps.map((s) => s.title),
        setup: [...parsed.lesson.setup],
        policy,
      });
      state.pending = null;
      if (!accepted)
        return refuse(
          "consent-declined",
          "you rejected the lesson this link carries: nothing was typed, applied or contacted",
          got.source.source,
        );
    }
    await leave();
    loaded = parsed.lesson;
    const saved = store.get(loaded.pin);
    run = startRun(loaded, saved?.run);
    // A link that names its step (an embedding docs page) starts there, whatever this browser kept.
    if (startAt !== null && startAt < loaded.steps.length) run.jumpTo(startAt);
    state.lesson = { title: loaded.title, summary: loaded.summary, pin: loaded.pin, source: got.source.source, steps: loaded.steps };
    log.append(loaded.loadEvent);
    post({ type: "lesson.loaded", pin: loaded.pin, title: loaded.title, steps: loaded.steps.length });
    ctx.layout.root.classList.add("lesson-focus");
    ctx.selectPanel("lessons");
    if (confined) {
      policyBefore = ctx.policy.current();
      await ctx.policy.replace(confined.policy, `lesson ${loaded.title}`);
    }
    persist();
    render();
    announceStep();
    if (loaded.setup.length > 0) void runSetup(loaded.setup);
  }

  function refuse(code: string, reason: string, source: string): void {
    log.append(refusedLoadEvent(source === "link" || source === "bundled" ? source : "url", code, reason));
    post({ type: "lesson.refused", code, reason });
    state.refusal = { code, reason };
    ctx.selectPanel("lessons");
    render();
  }

  /** Runs the setup in order; a failed command is fatal (src/lessons' setupFailure, as in `lesson test`): no step is judged until Restart. */
  async function runSetup(commands: readonly string[]): Promise<void> {
    const g = await ctx.guest;
    const forRun = run;
    for (const [i, command] of commands.entries()) {
      const done = await runOnConsole(ctx, g, command, "lesson-setup", (record) => setupRecords.add(record.index)).catch(
        (error: unknown) => ({ outcome: "failed" as const, results: [], message: (error as Error).message }),
      );
      const result = done.results[0];
      const failed = setupFailure(i, command, {
        status: result?.status ?? null,
        timedOut: done.outcome !== "done" && result === undefined,
        output: result?.output ?? done.message,
      });
      if (failed === null) continue;
      if (run !== forRun || !run) return;
      run.setupFailed(failed);
      state.note = `The lesson's setup failed, so its steps cannot be judged: ${failed}. Press Restart to run the setup again.`;
      render();
      return;
    }
  }

  async function leave(): Promise<void> {
    if (policyBefore) {
      const before = policyBefore;
      policyBefore = null;
      await ctx.policy.replace(before, "lesson closed");
    }
  }

  async function close(): Promise<void> {
    await leave();
    loaded = null;
    run = null;
    state.lesson = null;
    state.attempt = null;
    ctx.layout.root.classList.remove("lesson-focus");
    void refreshIndex();
    render();
  }

  async function restart(): Promise<void> {
    if (!run || !loaded) return;
    run.restart();
    store.forget(loaded.pin);
    state.attempt = null;
    state.note = null;
    persist();
    render();
    announceStep();
    if (loaded.setup.length > 0) void runSetup(loaded.setup);
  }

  function persist(): void {
    if (!run || !loaded) return;
    const kept = store.put(loaded.pin, {
      title: loaded.title,
      steps: loaded.steps.length,
      passed: Math.min(run.step, loaded.steps.length),
      run: run.progress(),
      savedAt: Date.now(),
    });
    if (!kept && state.note === null)
      state.note = "This browser does not let the page save lesson progress: it lasts until you leave the page.";
  }

  function announceStep(): void {
    if (!run || !loaded) return;
    if (run.step >= loaded.steps.length) return;
    post({ type: "lesson.step-started", pin: loaded.pin, step: run.step + 1, title: loaded.steps[run.step]!.title });
  }

  // ---- judging --------------------------------------------------------------------------

  function onWindow(window: WatchedCommand): void {
    if (setupRecords.has(window.index)) return;
    history.push(window);
    if (history.length > MAX_HISTORY) history.shift();
    if (!run || !loaded) return;
    const lesson = loaded;
    const outcome = run.judge(window);
    if (!outcome) return;
    log.append(outcome.event);
    state.attempt = outcome.attempt;
    if (outcome.attempt.result === "passed")
      post({
        type: "lesson.step-passed",
        pin: lesson.pin,
        step: outcome.attempt.step + 1,
        title: lesson.steps[outcome.attempt.step]!.title,
        code: outcome.code,
      });
    else
      post({
        type: "lesson.step-failed",
        pin: lesson.pin,
        step: outcome.attempt.step + 1,
        title: lesson.steps[outcome.attempt.step]!.title,
        code: outcome.code,
        unmet: outcome.unmetItems,
      });
    persist();
    render();
    if (outcome.attempt.result === "passed") {
      if (run.step >= lesson.steps.length) post({ type: "lesson.done", pin: lesson.pin, steps: lesson.steps.length });
      else announceStep();
    }
  }

  // ---- authoring ------------------------------------------------------------------------

  async function saveAsLesson(): Promise<void> {
    if (history.length === 0) {
      state.draft = { yaml: "", link: null, problem: "Run a command in the terminal first: the draft has one step per command you ran." };
      return render();
    }
    const drafted = draftFromWindows(history, { title: "Draft lesson", policy: ctx.policy.current() });
    if (!drafted.ok) {
      state.draft = { yaml: "", link: null, problem: drafted.reason };
      return render();
    }
    const yaml = drafted.yaml;
    state.draft = { yaml, link: null, problem: null };
    render();
    const encoded = await encodeDraft(yaml);
    if (encoded.ok) state.draft = { yaml, link: draftHref(ctx.link.href, encoded.fragment), problem: null };
    else state.draft = { yaml, link: null, problem: encoded.reason };
    render();
  }

  // ---- the index ------------------------------------------------------------------------

  async function refreshIndex(): Promise<void> {
    const entries = [];
    for (const listed of await bundledLessonIndex()) {
      const text = await bundledLessonText(listed.name);
      if (text === null) continue;
      // Progress is kept by the lesson's pin (its sha256), so the text is hashed; its title and
      // step count come from the index (a lesson is parsed when it is opened).
      const source = await lessonFromText(text, "bundled", listed.name);
      const saved = store.get(source.pin);
      entries.push({ name: listed.name, title: listed.title, steps: listed.steps, passed: saved?.passed ?? 0 });
    }
    state.index = entries;
    state.indexReady = true;
    // Shown only with no lesson open: redrawing an open lesson's step for it would replace the
    // buttons under a visitor's pointer (the features mount just after the first prompt, so
    // this list can land while a lesson a link opened is already on screen).
    if (!state.lesson) render();
  }

  // ---- start ----------------------------------------------------------------------------

  render();
  void refreshIndex();
  ctx.guest.then(
    (g) => {
      guest = g;
      state.guestReady = true;
      watchCommands(g.console, log, onWindow, { settleLimitMs: LESSON_SETTLE_MS });
      render();
    },
    () => undefined, // the boot bar reports it
  );
  const fromLink = link.request.kind === "url" || link.request.kind === "link";
  // `?tour=1` is the tour lesson, played like any shipped lesson (one click, no card).
  const request: LessonRequest = link.request.kind === "none" && ctx.link.tour ? { kind: "bundled", name: TOUR_LESSON } : link.request;
  const opened = request.kind === "none" ? Promise.resolve() : open(request, link.step, fromLink);
  opened.catch((error: unknown) => {
    if (fromLink) ctx.consent.withdraw("lesson");
    refuse("lesson-invalid", (error as Error).message, "url");
  });

  ctx.expose("lessons", {
    opened,
    state: () => ({
      pin: loaded?.pin ?? null,
      step: run?.step ?? null,
      done: run && loaded ? run.step >= loaded.steps.length : false,
      refusal: state.refusal,
      history: history.map((w) => w.command),
    }),
    open: (name: string) => open({ kind: "bundled", name }),
  });
}

/** Where a published lesson came from, as the card says it: its host. */
function hostOf(ref: string): string {
  try {
    return new URL(ref).host;
  } catch {
    return "a URL";
  }
}
