import type { WatchedCommand } from "../../../console";
import { DEMO_VAULT_ID, seedDemoVault } from "../../../kms";
import { type CheckRun, runStepChecks, setupFailure, stepChecks } from "../../../lessons";
import { messageOf } from "../../../platform";
import { confineLinkPolicy, type Policy } from "../../../policy";
import { describePolicyChange } from "../../../trust";
import type { FeatureContext } from "../context";
import { runOnConsole } from "./console-run";
import type { LessonMessage } from "./embed-messages";
import { draftFromWindows, encodeDraft, type LoadedLesson, loadLessonText, refusedLoadEvent } from "./lesson-core";
import { draftHref, type LessonRequest } from "./link-params";
import { hostOf, obtainLesson } from "./obtain";
import type { PlayerEvent, PlayerModel } from "./player-machine";
import type { LessonProgressStore } from "./progress-store";
import type { LessonSource } from "./source";
import type { PlayerState } from "./view";

/** What the player's mount hands its loading, setup and authoring: the page, the drawn state and the machine. */
export interface PlayerHost {
  ctx: FeatureContext;
  state: PlayerState;
  store: LessonProgressStore;
  post(message: LessonMessage): void;
  render(): void;
  dispatch(event: PlayerEvent): void;
  model(): PlayerModel;
  /** Records of the setup commands (not judged, not drafted). */
  setupRecords: Set<number>;
  /** The newest setup (or resume) typing, settled once its last command ended. */
  setupRun: Promise<void>;
  /** The reader's policy while a lesson's own is applied, and the application its setup waits for. */
  policy: { before: Policy | null; applied: Promise<void> };
}

/** Opens a lesson: read, (for a link) asked about on the card, its policy applied, then the machine's `open`. */
export async function openLesson(p: PlayerHost, request: LessonRequest, startAt: number | null, fromLink: boolean): Promise<void> {
  const { ctx, state } = p;
  state.refusal = null;
  state.attempt = null;
  const got = await obtainLesson(ctx, request);
  const parsed = got.ok ? loadLessonText(got.source) : null;
  if (!got.ok || !parsed?.ok) {
    if (fromLink) ctx.consent.withdraw("lesson");
    if (!got.ok) return refuseLesson(p, got.code, got.reason, got.source);
    return parsed && !parsed.ok ? refuseLesson(p, parsed.code, parsed.reason, got.source.source) : undefined;
  }
  const lesson = parsed.lesson;
  const confined = lesson.policy ? confineLinkPolicy(lesson.policy) : null;
  if (fromLink && !(await consented(p, got.source, lesson, confined))) return;
  await leaveLesson(p);
  state.lesson = { title: lesson.title, summary: lesson.summary, pin: lesson.pin, source: got.source.source, steps: lesson.steps };
  ctx.panels.select("lessons");
  // The setup waits for the lesson's policy; lesson.load is logged before the policy change.
  let applied = (): void => undefined;
  p.policy.applied = new Promise((resolve) => {
    applied = resolve;
  });
  p.dispatch({ kind: "open", lesson, saved: p.store.get(lesson.pin)?.run, startAt });
  if (confined) {
    p.policy.before = ctx.policy.current();
    await ctx.policy.replace(confined.policy, `lesson ${lesson.title}`);
    await bringDemoVault(p, confined.policy);
  }
  applied();
}

/**
 * A lesson whose policy names the demo vault finds it holding its files, whatever ran before in
 * this browser (as in `lesson test`, src/cli/guest/services.ts): the page seeds it as its own
 * write when nothing was ever pushed to it. The vault's content is the page's state, not the
 * guest's, so no setup command could bring it. Only the demo vault, with its fixed files.
 */
async function bringDemoVault(p: PlayerHost, policy: Policy): Promise<void> {
  if (!policy.vaults.includes(DEMO_VAULT_ID)) return;
  const seeded = await seedDemoVault(p.ctx.services.vault.service, policy).catch((error: unknown) => ({
    allowed: false,
    code: "vault-unavailable",
    reason: messageOf(error),
  }));
  if (seeded && !seeded.allowed)
    p.state.note = `The demo vault could not be filled (${seeded.code}: ${seeded.reason}), so a pull of it finds nothing.`;
}

/**
 * Material from a link is shown at once and does nothing until the reader accepts the card
 * (docs/decisions/0028): no policy, no setup, no step judged before then. A lesson that types
 * nothing and leaves the policy as it is has nothing to ask (only the reader's clicks type).
 */
async function consented(
  p: PlayerHost,
  source: LessonSource,
  lesson: LoadedLesson,
  confined: ReturnType<typeof confineLinkPolicy> | null,
): Promise<boolean> {
  const { ctx, state } = p;
  const policy = confined ? { changes: describePolicyChange(ctx.policy.current(), confined.policy), refused: confined.refused } : null;
  // `check:` items run commands in the guest too (out of band, after the reader's own): shown and asked for like the setup.
  const checks = lesson.lesson.steps.flatMap((step) => stepChecks(step).map((c) => c.check));
  const effects =
    lesson.setup.length > 0 || checks.length > 0 || (policy !== null && (policy.changes.length > 0 || policy.refused.length > 0));
  if (!effects) {
    ctx.consent.withdraw("lesson");
    return true;
  }
  state.pending = { title: lesson.title, steps: lesson.steps.map((s) => s.title) };
  ctx.panels.select("lessons");
  p.render();
  const accepted = await ctx.consent.offer({
    kind: "lesson",
    title: lesson.title,
    from: source.source === "link" ? "a draft link" : hostOf(source.ref),
    steps: lesson.steps.map((s) => s.title),
    setup: [...lesson.setup],
    checks,
    policy,
  });
  state.pending = null;
  if (!accepted)
    refuseLesson(
      p,
      "consent-declined",
      "you rejected the lesson this link carries: nothing was typed, applied or contacted",
      source.source,
    );
  return accepted;
}

export function refuseLesson(p: PlayerHost, code: string, reason: string, source: string): void {
  p.ctx.log.append(refusedLoadEvent(source === "link" || source === "bundled" ? source : "url", code, reason));
  p.post({ type: "lesson.refused", code, reason });
  p.state.refusal = { code, reason };
  p.ctx.panels.select("lessons");
  p.render();
}

/** Runs the setup in order; a failed command is fatal (src/lessons' setupFailure, as in `lesson test`): no step is judged until Restart. */
export async function runSetup(p: PlayerHost, commands: readonly string[], replay: readonly string[] = []): Promise<void> {
  const g = await p.ctx.guest;
  await p.policy.applied;
  const forLesson = p.model().lesson;
  for (const [i, command] of [...commands, ...replay].entries()) {
    const replayed = i >= commands.length;
    const done = await runOnConsole(p.ctx, g, command, "lesson-setup", (record) => p.setupRecords.add(record.index)).catch(
      (error: unknown) => ({ outcome: "failed" as const, results: [], message: messageOf(error) }),
    );
    const result = done.results[0];
    const failed = setupFailure(i, command, {
      // A replayed step's command may rightly fail (it showed a refusal); only one that never ended counts.
      status: replayed && result ? 0 : (result?.status ?? null),
      timedOut: done.outcome !== "done" && result === undefined,
      output: result?.output ?? done.message,
    });
    if (failed === null) continue;
    if (p.model().lesson !== forLesson) return;
    p.state.note = `The lesson's setup failed, so its steps cannot be judged: ${failed}. Press Restart to start the lesson over.`;
    return p.dispatch({ kind: "setup-failed", reason: failed });
  }
}

/**
 * Runs the current step's checks after a command settled, out of band on the guest's control
 * line (src/lessons' runStepChecks, as in `lesson test`): not in the learner's shell, not on
 * the learner's screen. Resolves with what they did, for the machine to judge with the command.
 */
export async function runChecks(p: PlayerHost): Promise<CheckRun[]> {
  const model = p.model();
  const step = model.lesson && model.progress ? model.lesson.lesson.steps[model.progress.step] : undefined;
  if (!step || model.blocked !== null || stepChecks(step).length === 0) return [];
  const g = await p.ctx.guest;
  return runStepChecks(step, (c) => g.runCheck({ command: c.check, as: c.as, timeoutMs: c.timeoutMs }));
}

/** Gives the reader's policy back when a lesson that had its own is left. */
export async function leaveLesson(p: PlayerHost): Promise<void> {
  const before = p.policy.before;
  if (!before) return;
  p.policy.before = null;
  await p.ctx.policy.replace(before, "lesson closed");
}

/** "Save as lesson": the draft of the commands run, and its link. */
export async function saveAsLesson(p: PlayerHost, history: readonly WatchedCommand[]): Promise<void> {
  const { state } = p;
  if (history.length === 0) {
    state.draft = { yaml: "", link: null, problem: "Run a command in the terminal first: the draft has one step per command you ran." };
    return p.render();
  }
  const drafted = draftFromWindows(history, { title: "Draft lesson", policy: p.ctx.policy.current() });
  if (!drafted.ok) {
    state.draft = { yaml: "", link: null, problem: drafted.reason };
    return p.render();
  }
  const yaml = drafted.yaml;
  state.draft = { yaml, link: null, problem: null };
  p.render();
  const encoded = await encodeDraft(yaml);
  state.draft = encoded.ok
    ? { yaml, link: draftHref(p.ctx.link.href, encoded.fragment), problem: null }
    : { yaml, link: null, problem: encoded.reason };
  p.render();
}
