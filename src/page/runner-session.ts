import { utf8 } from "../bytes";
import type { Cas } from "../cas";
import type { EventLog, NewEvent } from "../log";
import {
  createFixtureFetch,
  createHttpLocalFiles,
  createMemoryLocalFiles,
  type Resolution,
  readOrgConfig,
  redact,
  resolveHarness,
} from "../resolver";
import { type AttachedSkill, attachSkill, type SkillBlobStore, type SkillHandleStore, scriptsGiven } from "../skills";
import { connectionsClosed } from "./command-settle";
import type { ConsoleTurns } from "./console-turns";
import type { Guest } from "./emulator/boot";
import { writeShareFile } from "./guest-share";
import { SAMPLE, SAMPLE_HARNESS_PATH } from "./resolve-session";
import { RUNNER_DEMO_FILES, RUNNER_DEMO_HARNESS, RUNNER_DEMO_REPO } from "./runner-demo";
import { parseRunnerLine, type RunnerLine, runnerLineEvent, runOutcome } from "./runner-lines";
import { buildRunPlan, GUEST_HOST_ENV, type PreflightPlan } from "./runner-plan";
import { RUNNER_SCRIPTS } from "./runner-scripts";

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
  /** How long to wait for the runner's outcome line (default: 15 minutes). */
  timeoutMs?: number;
  /** Skill handles to attach (seed 002); default: the ones the operator ticked in the Skills panel. */
  skills?: readonly string[];
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
  guest: Promise<Guest>;
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
}

const SOURCE = "runner";

/** Resolves the harness to run: the runner demo from memory, the sample bundle, or a pinned URL. */
async function resolveFor(deps: RunnerDeps, harness: string): Promise<Resolution> {
  const { cas, log } = deps;
  let ref = harness;
  if (ref === "demo") return resolveHarness({ cas, log, harness: RUNNER_DEMO_HARNESS, local: createMemoryLocalFiles(RUNNER_DEMO_FILES) });
  if (ref === SAMPLE) ref = SAMPLE_HARNESS_PATH;
  const bundle = createHttpLocalFiles({ root: new URL("samples/", location.href).href, fetch: (u, i) => fetch(u, i) });
  const org = await readOrgConfig(bundle, "/.fullsend/config.yaml");
  const orgConfig = org.ok ? org.config : null;
  if (ref.startsWith("https://")) return resolveHarness({ cas, log, orgConfig, harness: ref, fetch: (u, i) => fetch(u, i) });
  return resolveHarness({ cas, log, orgConfig, harness: ref, local: bundle, fetch: createFixtureFetch(bundle, "/fixtures") });
}

/**
 * One agent run: resolve, deliver over the 9p share (logged with hashes), type the runner's
 * command into the guest so the user sees what ran, and turn its step lines into log events.
 */
export async function runAgent(deps: RunnerDeps, options: RunOptions = {}): Promise<RunResult> {
  const { log } = deps;
  const harnessRef = options.harness ?? "demo";
  const id = `run-${deps.randomId()}`;
  const env = { ...GUEST_HOST_ENV, ...(options.env ?? {}) };
  const scrub = (text: string) => redact(text, env);
  const note = (step: string, level: "info" | "warning" | "error", message: string, outcome: string | null = null) =>
    log.append({ kind: "runner.step", run: id, source: SOURCE, step, outcome, level, message: scrub(message) } satisfies NewEvent);
  const failed = (stage: string, message: string): RunResult => {
    note(stage, "error", message, "failed");
    log.append({ kind: "scenario", id, phase: "failed", message: scrub(message) });
    return {
      id,
      harness: harnessRef,
      outcome: "failed",
      stage,
      status: 1,
      lines: [],
      delivered: [],
      preflight: "none",
      command: "",
      skills: [],
    };
  };

  const startSeq = log.append({ kind: "scenario", id, phase: "start", message: `run agent: resolving ${harnessRef}` }).seq;
  const guest = await deps.guest;
  const resolution = await resolveFor(deps, harnessRef);
  if (!resolution.ok) return failed("resolve", `the harness did not resolve: ${resolution.error?.code} ${resolution.error?.reason ?? ""}`);

  // Skills by handle (seed 002, Part 2): each read is one logged `attach`; a handle that does
  // not open fails the run rather than running without what the operator asked for.
  const skills: AttachedSkill[] = [];
  for (const handle of options.skills ?? deps.skills.attached()) {
    const attached = await attachSkill(handle, deps.skills.scriptPins(), { store: deps.skills.store, handles: deps.skills.handles, log });
    if (!attached.ok)
      return failed("skills", `skill handle ${handle}: ${attached.verdict.code} (by ${attached.verdict.by}) ${attached.verdict.reason}`);
    skills.push(attached.skill);
    const a = attached.skill.activation;
    note(
      "skills",
      "info",
      `attached skill handle ${a.handle} (${a.discoveryId}, pin ${a.pin}, text sha256=${a.contextSha256}); scripts: ${attached.skill.scriptsVerdict.reason}`,
      "attached",
    );
  }

  const planned = await buildRunPlan({
    id,
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
  if (!planned.ok) return failed("plan", planned.reason);
  const plan = planned.plan;

  if (plan.preflight.kind === "refused") {
    const v = plan.preflight.verdict;
    note("preflight", "error", `preflight_check refused (${v.code}, by ${v.by}): ${v.reason}`, "refused");
  }

  // Delivery: the runner scripts, then the run's files; every one logged with its hash.
  for (const [path, text] of Object.entries(RUNNER_SCRIPTS)) await writeShareFile(guest, path, utf8(text));
  for (const file of plan.files) await writeShareFile(guest, `${plan.dir}/${file.path}`, file.bytes);
  for (const file of plan.files.filter((f) => f.field !== null || f.path === "harness.json" || f.path === "manifest.sha256"))
    note(
      "deliver",
      "info",
      `delivered /mnt/tab/${plan.dir}/${file.path} sha256=${file.sha256} (${file.bytes.length} bytes${file.field ? `, ${file.field}` : ""})`,
    );
  note(
    "deliver",
    "info",
    `delivered ${plan.files.length} files (steps from ${plan.stepsSource}, preflight ${plan.preflight.kind}, ${skills.length} skills by handle); running ${plan.command}`,
    "ok",
  );

  // One conversation with the console at a time: a scenario clicked meanwhile waits its turn.
  return deps.turns.take(async () => {
    const lines: RunnerLine[] = [];
    const seen: { last: RunnerLine | null } = { last: null };
    let started = false;
    const stop = guest.console.onLine((raw) => {
      const line = parseRunnerLine(raw);
      if (!line) return;
      if (line.fields.step === "start") started = line.fields.run === id;
      if (!started) return;
      const event = runnerLineEvent(line, id, scrub);
      if (event) log.append(event);
      if (line.quote === null) lines.push(line);
      if (runOutcome(line)) seen.last = line;
    });
    try {
      const timeoutMs = options.timeoutMs ?? 15 * 60_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // The driver waits for a person's command to end, types the runner's command, and
      // resolves on its command-finished mark: every step line is on the log by then.
      const controller = new AbortController();
      let typed = false;
      const running = guest.driver.run(plan.command, { signal: controller.signal, onStarted: () => (typed = true) });
      running.catch(() => undefined);
      const ended = await Promise.race([
        running,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (ended === null) {
        // Typed: stop it as a person would. Still waiting: never typed at all.
        if (typed) guest.driver.interrupt();
        else controller.abort(new Error("timed out"));
        return failed("timeout", `no outcome from the guest within ${Math.round(timeoutMs / 1000)} s`);
      }
      if (ended.interrupted) return failed("interrupted", `interrupted: exit status ${ended.status} (Ctrl+C)`);
      const last = seen.last;
      if (last === null) return failed("outcome", `the runner ended with exit status ${ended.status} and no outcome line`);
      await connectionsClosed(log, startSeq, 30_000);
      const outcome = runOutcome(last)!;
      log.append({
        kind: "scenario",
        id,
        phase: outcome.outcome === "ok" ? "done" : "failed",
        message: `outcome=${outcome.outcome} stage=${outcome.stage} status=${outcome.status}`,
      });
      return {
        id,
        harness: harnessRef,
        ...outcome,
        lines,
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
    } finally {
      stop();
    }
  });
}
