import { utf8 } from "../bytes";
import type { Cas } from "../cas";
import type { ConsoleTurns, GuestPort } from "../console";
import { runConsoleTask } from "../console";
import type { EventLog, NewEvent } from "../log";
import {
  createMemoryLocalFiles,
  createRuntimeFetch,
  type Resolution,
  type RunScope,
  type RuntimeFetchEndpoint,
  redact,
  resolveHarnessSession,
} from "../resolver";
import { type AttachedSkill, attachSkill, type SkillBlobStore, type SkillHandleStore, scriptsGiven } from "../skills";
import { RUNNER_DEMO_FILES, RUNNER_DEMO_HARNESS, RUNNER_DEMO_REPO } from "./demo";
import { buildRunPlan, GUEST_HOST_ENV, type PreflightPlan, type RunPlan } from "./plan";
import { type ActiveRun, repositoryNotes, runtimeDeliverer, skillDeliverer } from "./run-time";
import { parseRunnerLine, type RunnerLine, runnerLineEvent, runOutcome } from "./step-lines";

/** What `run()` accepts (the button passes nothing: the demo, or `?harness=`). */
export interface RunOptions {
  /** "demo" (default), a path in the sample bundle (`/.fullsend/harness/demo.yaml`), or a pinned https URL. */
  harness?: string;
  steps?: readonly string[];
  /** An existing guest directory under /tmp to work in; default: the delivered repo, copied. */
  workspace?: string;
  repo?: Readonly<Record<string, string>>;
  /** Extra host environment for `${VAR}` expansion (credentials in it are refused, never passed). */
  env?: Readonly<Record<string, string>>;
  /** Replaces the harness's preflight_check (null: none). */
  preflight?: string | null;
  /** Cancels the run while it still waits for the shell (a person's command, another scenario). */
  signal?: AbortSignal;
  /** Told true when the run has to wait for the shell, false once its command is typed. */
  onWaiting?(waiting: boolean): void;
  /** How long to wait for the runner's outcome line (default: 15 minutes). */
  timeoutMs?: number;
  /** Skill handles to attach (loaded by handle, never by text); default: the ones the operator ticked in the Skills panel. */
  skills?: readonly string[];
  /**
   * Called once the run's command is about to be typed, with what the run offers while it
   * lasts; what it returns is called when the run ends (the Model section arms /v0/model here).
   */
  whileRunning?(run: ActiveRun): () => void;
}

export interface RunResult {
  id: string;
  harness: string;
  outcome: "ok" | "failed";
  stage: string;
  status: number;
  /** The step lines the guest printed for this run (quotes excluded). */
  lines: RunnerLine[];
  delivered: { path: string; sha256: string }[];
  preflight: PreflightPlan["kind"];
  command: string;
  /** The skills attached by handle: handle, pin, digest of the text given, scripts given or held. */
  skills: { handle: string; pin: string; contextSha256: string; scripts: "none" | "allowed" | "held" }[];
}

export interface RunnerDeps {
  log: EventLog;
  cas: Cas;
  /**
   * Resolves a harness for a run, under the run's id, keeping the run's scope for its run-time
   * fetches (the page's resolver: the sample bundle, its recordings, pinned URLs).
   */
  resolver: { resolveForRun(harness: string, runId: string): Promise<{ resolution: Resolution; session: RunScope | null }> };
  /** `POST /v0/resolve`: armed for exactly the run's duration with the run's scope (RunScope). */
  runtimeFetch: Pick<RuntimeFetchEndpoint, "arm">;
  guest: Promise<GuestPort>;
  /** Random run ids; injected so nothing reaches for a global. */
  randomId(): string;
  /** The page's skills: handles, their bytes, and the operator's attach / script choices. */
  skills: {
    store: SkillBlobStore;
    handles: SkillHandleStore;
    attached(): readonly string[];
    scriptPins(): ReadonlySet<string>;
  };
  /** The guest console is typed into one conversation at a time. */
  turns: ConsoleTurns;
  /** The guest runner's scripts (`bin/tab-run`…), written to the share before each run: the host bundles them. */
  scripts: Readonly<Record<string, string>>;
}

const SOURCE = "runner";
const DEFAULT_TIMEOUT_MS = 15 * 60_000;

/** One run's voice on the log: every message redacted with the run's environment. */
interface RunLog {
  id: string;
  harness: string;
  scrub(text: string): string;
  note(step: string, level: "info" | "warning" | "error", message: string, outcome?: string | null): void;
  /** Logs the failure (a step and the run's scenario end) and answers the failed result. */
  failed(stage: string, message: string): RunResult;
  /** Notes the end as a step and answers the failed result; the console task logs the run's scenario end. */
  noted(stage: string, phase: "failed" | "interrupted" | "cancelled", message: string): RunResult;
}

function runLog(log: EventLog, id: string, harness: string, env: Readonly<Record<string, string>>): RunLog {
  const scrub = (text: string) => redact(text, env);
  const note: RunLog["note"] = (step, level, message, outcome = null) =>
    log.append({ kind: "runner.step", run: id, source: SOURCE, step, outcome, level, message: scrub(message) } satisfies NewEvent);
  const noted = (stage: string, phase: "failed" | "interrupted" | "cancelled", message: string): RunResult => {
    note(stage, phase === "cancelled" ? "warning" : "error", message, phase);
    return { id, harness, outcome: "failed", stage, status: 1, lines: [], delivered: [], preflight: "none", command: "", skills: [] };
  };
  const end = (stage: string, phase: "failed" | "interrupted" | "cancelled", message: string): RunResult => {
    const result = noted(stage, phase, message);
    log.append({ kind: "scenario", act: "agent-run", id, phase, message: scrub(message) });
    return result;
  };
  return {
    noted,
    id,
    harness,
    scrub,
    note,
    failed(stage, message) {
      return end(stage, "failed", message);
    },
  };
}

/**
 * The runner demo resolves from memory; everything else is the page resolver's. Either
 * way under the run's id, keeping the session the run's run-time fetches go through.
 */
function resolveFor(deps: RunnerDeps, harness: string, runId: string): Promise<{ resolution: Resolution; session: RunScope | null }> {
  if (harness !== "demo") return deps.resolver.resolveForRun(harness, runId);
  return resolveHarnessSession({
    cas: deps.cas,
    log: deps.log,
    harness: RUNNER_DEMO_HARNESS,
    local: createMemoryLocalFiles(RUNNER_DEMO_FILES),
    runId,
  });
}

/**
 * Skills by handle: each read is one logged `attach`; a handle that does
 * not open fails the run rather than running without what the operator asked for.
 */
async function attachSkills(deps: RunnerDeps, handles: readonly string[], run: RunLog): Promise<AttachedSkill[] | RunResult> {
  const skills: AttachedSkill[] = [];
  for (const handle of handles) {
    const attached = await attachSkill(handle, deps.skills.scriptPins(), {
      store: deps.skills.store,
      handles: deps.skills.handles,
      log: deps.log,
    });
    if (!attached.ok)
      return run.failed(
        "skills",
        `skill handle ${handle}: ${attached.verdict.code} (by ${attached.verdict.by}) ${attached.verdict.reason}`,
      );
    skills.push(attached.skill);
    const a = attached.skill.activation;
    run.note(
      "skills",
      "info",
      `attached skill handle ${a.handle} (${a.discoveryId}, pin ${a.pin}, text sha256=${a.contextSha256}); scripts: ${attached.skill.scriptsVerdict.reason}`,
      "attached",
    );
  }
  return skills;
}

/** Delivery: the runner scripts, then the run's files; every one logged with its hash. */
async function deliver(
  guest: GuestPort,
  scripts: Readonly<Record<string, string>>,
  plan: RunPlan,
  skillCount: number,
  run: RunLog,
): Promise<void> {
  for (const [path, text] of Object.entries(scripts)) await guest.writeFile(path, utf8(text));
  for (const file of plan.files) await guest.writeFile(`${plan.dir}/${file.path}`, file.bytes);
  for (const file of plan.files.filter((f) => f.field !== null || f.path === "harness.json" || f.path === "manifest.sha256"))
    run.note(
      "deliver",
      "info",
      `delivered /mnt/tab/${plan.dir}/${file.path} sha256=${file.sha256} (${file.bytes.length} bytes${file.field ? `, ${file.field}` : ""})`,
    );
  run.note(
    "deliver",
    "info",
    `delivered ${plan.files.length} files (steps from ${plan.stepsSource}, preflight ${plan.preflight.kind}, ${skillCount} skills by handle); running ${plan.command}`,
    "ok",
  );
}

/** What the guest's console said about one run: its step lines and the last outcome line. */
function watchStepLines(guest: GuestPort, log: EventLog, run: RunLog): { lines: RunnerLine[]; last(): RunnerLine | null; stop(): void } {
  const lines: RunnerLine[] = [];
  let last: RunnerLine | null = null;
  let started = false;
  const stop = guest.console.onLine((raw) => {
    const line = parseRunnerLine(raw);
    if (!line) return;
    if (line.fields.step === "start") started = line.fields.run === run.id;
    if (!started) return;
    const event = runnerLineEvent(line, run.id, run.scrub);
    if (event) log.append(event);
    if (line.quote === null) lines.push(line);
    if (runOutcome(line)) last = line;
  });
  return { lines, last: () => last, stop };
}

/**
 * One agent run: resolve, deliver over the 9p share (logged with hashes), type the runner's
 * command into the guest so the user sees what ran, and turn its step lines into log events.
 */
export async function runAgent(deps: RunnerDeps, options: RunOptions = {}): Promise<RunResult> {
  const { log } = deps;
  const env = { ...GUEST_HOST_ENV, ...(options.env ?? {}) };
  const run = runLog(log, `run-${deps.randomId()}`, options.harness ?? "demo", env);

  const startSeq = log.append({
    kind: "scenario",
    act: "agent-run",
    id: run.id,
    phase: "start",
    message: `run agent: resolving ${run.harness}`,
  }).seq;
  const guest = await deps.guest;
  const { resolution, session } = await resolveFor(deps, run.harness, run.id);
  if (!resolution.ok)
    return run.failed("resolve", `the harness did not resolve: ${resolution.error?.code} ${resolution.error?.reason ?? ""}`);

  const skills = await attachSkills(deps, options.skills ?? deps.skills.attached(), run);
  if (!Array.isArray(skills)) return skills;

  const planned = await buildRunPlan({
    id: run.id,
    resolution,
    read: async (sha256) => {
      const got = await deps.cas.get(sha256);
      return got.status === "hit" ? got.bytes : null;
    },
    repo: options.repo ?? RUNNER_DEMO_REPO,
    env,
    ...(options.steps ? { steps: options.steps } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.preflight !== undefined ? { preflight: options.preflight } : {}),
    skills,
  });
  if (!planned.ok) return run.failed("plan", planned.reason);
  const plan = planned.plan;
  if (plan.preflight.kind === "refused") {
    const v = plan.preflight.verdict;
    run.note("preflight", "error", `preflight_check refused (${v.code}, by ${v.by}): ${v.reason}`, "refused");
  }
  await deliver(guest, deps.scripts, plan, skills.length, run);
  const repo = options.workspace ? null : (options.repo ?? RUNNER_DEMO_REPO);

  // One conversation with the console at a time: a scenario clicked meanwhile waits its turn,
  // and this run waits for one already going (or a person's command), shown with a Cancel.
  let watched: ReturnType<typeof watchStepLines> | null = null;
  let result: RunResult | null = null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const task = await runConsoleTask(
    { log, turns: deps.turns, guest },
    {
      id: run.id,
      act: "agent-run",
      commands: [plan.command],
      startMessage: `run agent: resolving ${run.harness}`,
      startSeq,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
      timeoutMs,
      prepare: () => {
        const lines = watchStepLines(guest, log, run);
        watched = lines;
        const ends: (() => void)[] = [() => lines.stop()];
        // POST /v0/resolve is there for exactly this run's duration. A harness without
        // allow_runtime_fetch still arms it, so each refused call is a node under its run.
        if (session) {
          const fetch = createRuntimeFetch(session);
          ends.push(
            deps.runtimeFetch.arm({
              fetch,
              deliver: runtimeDeliverer(guest, plan.dir, (m) => run.note("runtime-fetch", "info", m, "delivered")),
            }),
          );
          run.note(
            "runtime-fetch",
            "info",
            fetch.allowed
              ? `run-time fetches allowed: up to ${fetch.max}, with tab-fetch URL#sha256=… (POST /v0/resolve, open while this run lasts)`
              : "run-time fetches not allowed by this harness (allow_runtime_fetch is not true): POST /v0/resolve answers runtime-fetch-not-allowed",
          );
        }
        if (options.whileRunning)
          ends.push(
            options.whileRunning({
              id: run.id,
              guestDir: `/mnt/tab/${plan.dir}`,
              repository: repositoryNotes(repo),
              deliverSkill: skillDeliverer(guest, plan.dir, (m) => run.note("skills", "info", m, "attached")),
            }),
          );
        return () => {
          for (const end of ends.reverse()) end();
        };
      },
      // Each end is a runner step too (logged before the task's end event), in the run's words.
      conclude: (end) => {
        if (end.how === "cancelled") {
          result = run.noted("cancelled", "cancelled", "cancelled while waiting for the shell");
          return { message: run.scrub("cancelled while waiting for the shell") };
        }
        if (end.how === "timed-out") {
          const message = `no outcome from the guest within ${Math.round(timeoutMs / 1000)} s`;
          result = run.noted("timeout", "failed", message);
          return { message: run.scrub(message), failed: true };
        }
        if (end.how === "interrupted") {
          const message = `interrupted: exit status ${end.status} (Ctrl+C)`;
          result = run.noted("interrupted", "interrupted", message);
          return { message: run.scrub(message) };
        }
        if (end.how === "failed") return { message: run.scrub(end.error.message) };
        const last = watched?.last() ?? null;
        const status = end.results.at(-1)?.status ?? null;
        if (last === null) {
          const message = `the runner ended with exit status ${status} and no outcome line`;
          result = run.noted("outcome", "failed", message);
          return { message: run.scrub(message), failed: true };
        }
        const outcome = runOutcome(last)!;
        result = {
          id: run.id,
          harness: run.harness,
          ...outcome,
          lines: watched?.lines ?? [],
          delivered: plan.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
          preflight: plan.preflight.kind,
          command: plan.command,
          skills: skills.map((k) => ({
            handle: k.activation.handle,
            pin: k.activation.pin,
            contextSha256: k.activation.contextSha256,
            scripts: scriptsGiven(k),
          })),
        };
        return { message: `outcome=${outcome.outcome} stage=${outcome.stage} status=${outcome.status}`, failed: outcome.outcome !== "ok" };
      },
    },
  );
  if (task.outcome === "failed" && result === null) throw new Error(task.message);
  return result ?? run.noted("cancelled", "cancelled", task.message);
}
