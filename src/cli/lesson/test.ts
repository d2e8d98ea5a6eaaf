import { existsSync, realpathSync } from "node:fs";
import { lstat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { KERNEL_REPORTS, type LateReports } from "../../console";
import {
  type CheckRunner,
  type CommandWindow,
  checkLessonPin,
  createLessonRun,
  formatLessonIssues,
  judgeBudget,
  judgedOnKernelDecision,
  type Lesson,
  lessonPin,
  parseLesson,
  runStepChecks,
  type StepAttempt,
  type StepJudgement,
  setupFailure,
  splitLessonRef,
  stepCommand,
} from "../../lessons";
import { createEventLog } from "../../log";
import { runGuestCheck } from "../../machine";
import { messageOf } from "../../platform";
import { confineLinkPolicy, createPolicyHolder, DEFAULT_POLICY } from "../../policy";
import { parseCommandLine } from "../args";
import { createGuestUpstream, startNodeGuest, type UpstreamChoice } from "../guest";
import { symlinksUnder } from "../recordings";
import { readLessonBytes } from "./read";

/**
 * `npx tab lesson test FILE…`: runs each lesson headless, on the shipped guest in v86 under
 * Node with the page's peer, proxy and TLS core (src/cli/guest): the lesson's policy applied,
 * its setup run, then each step's command typed (a demo step's `run`, a task step's `solve`,
 * else its `run`) and judged by the same judge as the page (src/lessons' judgeStep). One line
 * per step; exit 0 only when every step of every lesson passed, 1 when one did not (the line
 * names the step and its unmet items), 64 on bad input (usage, an unreadable file,
 * lesson-invalid, lesson-pin-mismatch). Each lesson gets a freshly restored guest.
 */
export const LESSON_TEST_USAGE = [
  "npx tab lesson test FILE[#sha256=HEX]… [--recordings DIR] [--upstream URL | --network] [--boot fresh] [--timeout SECONDS]",
  "",
  "  --recordings DIR  answer allowed requests from DIR (host/path layout: docs/lessons.md); may repeat.",
  "                    Default: the `recordings` folder beside the lesson file, if there is one;",
  '                    else every allowed request is answered 404 "no recording".',
  "  --upstream URL    send every allowed request to this server instead (e.g. http://127.0.0.1:8080);",
  "                    the original host is in the X-Tab-Upstream header",
  "  --network         send allowed requests to the real upstreams (the Node host's guarded client)",
  "  --boot fresh      boot the guest image cold instead of restoring the shipped state",
  "  --record-windows FILE  write every typed command's window (JSON) to FILE: src/cli/lesson/contract.test.ts's input",
  "  --timeout S       seconds each command may run before it is interrupted, and then seconds",
  "                    its judging may take (an output item not reached is judge-timed-out) (default 120)",
  "",
  "The proxy decides every request first, under the lesson's policy, exactly as in the page.",
].join("\n");

const DEFAULT_TIMEOUT_S = 120;

/** Thrown for input the runner cannot use (exit 64). */
class BadInput extends Error {}

interface LessonFile {
  path: string;
  lesson: Lesson;
  pin: string;
}

const besideRecordings = (lessonPath: string) => join(dirname(resolve(lessonPath)), "recordings");

/**
 * A lesson folder may come from someone else: a link in its recordings (to ~/.ssh, to /etc)
 * would hand the tester's files to the guest. Every link is refused before any guest starts,
 * found with lstat and never followed.
 */
function refuseSymlinks(dir: string, what: string): void {
  const links = symlinksUnder(dir);
  if (links.length > 0)
    throw new BadInput(
      `${dir}: symlink-refused: ${what} holds symbolic links (${links.join(", ")}); a lesson's files are read only as plain files`,
    );
}

async function readLessonFile(arg: string): Promise<LessonFile> {
  const ref = splitLessonRef(arg);
  if (!ref.ok) throw new BadInput(`${arg}: ${ref.reason}`);
  const path = ref.ref;
  let bytes: Buffer;
  try {
    // A lesson file that is a link could name any of the tester's files; its issues would quote it.
    if ((await lstat(path)).isSymbolicLink())
      throw new BadInput(`${path}: symlink-refused: a lesson file is read only as a plain file, never through a symbolic link`);
    refuseSymlinks(besideRecordings(path), "the recordings folder beside it");
    const read = await readLessonBytes(path);
    if (!read.ok) throw new BadInput(`${path}: ${read.reason}`);
    bytes = read.bytes;
  } catch (error) {
    if (error instanceof BadInput) throw error;
    throw new BadInput(`${path}: cannot read: ${messageOf(error)}`);
  }
  const pinned = ref.pin === null ? { ok: true as const, pin: await lessonPin(bytes) } : await checkLessonPin(bytes, ref.pin);
  if (!pinned.ok) throw new BadInput(`${path}: ${pinned.code}: ${pinned.reason}`);
  const parsed = parseLesson(bytes.toString("utf8"));
  if (!parsed.ok) {
    const issues = formatLessonIssues(parsed.issues, { file: path })
      .map((i) => `  ${i}`)
      .join("\n");
    throw new BadInput(`${path}: ${parsed.code}:\n${issues}`);
  }
  return { path, lesson: parsed.lesson, pin: pinned.pin };
}

/** The command `lesson test` types for a step: src/lessons' stepCommand, the one Show me and Run type in the page. */
export { stepCommand };

function describeDecisive(judgement: StepJudgement): string {
  const d = judgement.decisive;
  if (!d) return "nothing decided";
  const what = [d.code, d.by ? `by ${d.by}` : "", d.target ? `(${d.target})` : ""].filter(Boolean).join(" ");
  return `${d.kind}${what ? ` ${what}` : ""}: ${d.reason}`;
}

/** One typed command and the window it left, as `--record-windows` writes them (the contract test's input). */
export interface RecordedWindow {
  lesson: string;
  command: string;
  window: CommandWindow;
}

interface RunOptions {
  recorded?: RecordedWindow[];
  upstream: UpstreamChoice | null;
  cold: boolean;
  timeoutMs: number;
  out: (line: string) => void;
}

/** Runs one lesson on a fresh guest; null when every step passed, else what failed first. */
async function runLesson(file: LessonFile, options: RunOptions): Promise<string | null> {
  const { lesson, path } = file;
  const { out } = options;
  const log = createEventLog();
  const policy = createPolicyHolder(DEFAULT_POLICY, log);
  if (lesson.policy !== undefined) {
    // A lesson someone sent is material: its policy minus what the guarantees refuse (docs/decisions/0028-material-from-a-link-is-untrusted.md).
    const confined = confineLinkPolicy(lesson.policy);
    for (const r of confined.refused) out(`${path}: the lesson's policy ${r.rule} is not applied (${r.code}): ${r.reason}`);
    await policy.replace(confined.policy, `lesson ${path}`);
  }
  const beside = besideRecordings(path);
  const choice: UpstreamChoice = options.upstream ?? { kind: "recordings", dirs: existsSync(beside) ? [beside] : [] };
  const upstream = createGuestUpstream(choice, policy);
  out(`${path}: "${lesson.title}" (sha256 ${file.pin.slice(0, 12)}…), ${upstream.describe}`);
  const guest = await startNodeGuest({ log, policy, upstream, cold: options.cold });
  try {
    const type: TypeCommand = async (command, limit) => {
      const window = await guest.run(command, {
        timeoutMs: limit?.timeoutMs ?? options.timeoutMs,
        ...(limit?.lateReports ? { lateReports: limit.lateReports } : {}),
      });
      options.recorded?.push({ lesson: basename(path), command, window });
      return window;
    };
    // A check runs out of band on the control line, as in the page; a recording keeps it in the window it judged.
    const check: CheckRunner = async (c) => {
      const ran = await runGuestCheck(guest.control, { command: c.check, as: c.as, timeoutMs: c.timeoutMs });
      const last = options.recorded?.at(-1);
      if (last) last.window = { ...last.window, checks: [...(last.window.checks ?? []), { check: c.check, ...ran }] };
      return ran;
    };
    return await runLessonSteps(file.lesson, file.pin, type, {
      timeoutMs: options.timeoutMs,
      out,
      check,
    });
  } finally {
    await guest.destroy();
  }
}

/** A command typed on the guest and the window it left, as `lesson test` reads it. */
export type TypeCommand = (
  command: string,
  options?: { timeoutMs?: number; lateReports?: LateReports },
) => Promise<CommandWindow & { timedOut?: boolean }>;

/**
 * `lesson test`'s run of one lesson, DOM-free and without a guest (`type` and `check` are
 * injected): its setup (a failed command is fatal, src/lessons' setupFailure, as in the page),
 * then each step's command (src/lessons' stepCommand) and its checks, out of band
 * (runStepChecks), judged by the core's run (`createLessonRun`, the run the page drives), every
 * step in turn even after one failed. Returns null when every step
 * passed, else what failed first; `onAttempt` sees each step's attempt (the contract test).
 */
export async function runLessonSteps(
  lesson: Lesson,
  pin: string,
  type: TypeCommand,
  options: {
    timeoutMs: number;
    out: (line: string) => void;
    /** Runs a step's checks out of band (the guest's control line; src/lessons' runStepChecks). */
    check: CheckRunner;
    onAttempt?: (attempt: StepAttempt | null, index: number) => void;
  },
): Promise<string | null> {
  const { out } = options;
  const run = createLessonRun(lesson, pin);
  for (const [i, command] of run.setup.entries()) {
    const done = await type(command);
    const failed = setupFailure(i, command, done);
    if (failed !== null) {
      run.setupFailed(failed);
      out(`  FAIL ${failed}`);
      return failed;
    }
  }
  let failure: string | null = null;
  for (const [i, step] of lesson.steps.entries()) {
    const label = `step ${i + 1} "${step.title}"`;
    run.jumpTo(i);
    const command = stepCommand(step);
    if (command === null) {
      out(`  FAIL ${label}: it has no run or solve to type`);
      failure ??= `${label}: no run or solve`;
      options.onAttempt?.(null, i);
      continue;
    }
    // A step judged on the kernel's word waits for its audit record (it comes on the control line).
    const typed = await type(command, judgedOnKernelDecision(step) ? { lateReports: KERNEL_REPORTS } : undefined);
    const checks = await runStepChecks(step, options.check);
    const window = checks.length > 0 ? { ...typed, checks } : typed;
    // The time limit covers judging too: output patterns get their own --timeout seconds.
    const attempt = run.attempt(window, judgeBudget(options.timeoutMs));
    options.onAttempt?.(attempt, i);
    if (!attempt) continue;
    if (attempt.passed) {
      out(`  PASS ${label}: ${describeDecisive(attempt.judgement)}`);
      continue;
    }
    const unmetItems = attempt.judgement.items.filter((r) => !r.met);
    failure ??= `${label}: unmet ${unmetItems.map((r) => JSON.stringify(r.item)).join(", ") || "none listed"}`;
    out(`  FAIL ${label}: \`${command}\`${window.timedOut ? " (timed out, interrupted)" : ""}`);
    for (const r of unmetItems) out(`    unmet ${JSON.stringify(r.item)}: ${r.detail}`);
    out(`    decisive ${describeDecisive(attempt.judgement)}`);
  }
  return failure;
}

function parse(args: string[]) {
  return parseCommandLine({
    args,
    options: {
      recordings: { type: "string", multiple: true },
      upstream: { type: "string" },
      network: { type: "boolean" },
      boot: { type: "string" },
      timeout: { type: "string" },
      "record-windows": { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
}

export async function runLessonTest(args: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tab lesson test: ${message}\n`);
    return 64;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return fail(`${messageOf(error)}\n\nusage: ${LESSON_TEST_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) return fail(`name at least one lesson file\n\nusage: ${LESSON_TEST_USAGE}`);
  const chosen = [values.recordings ? "--recordings" : "", values.upstream ? "--upstream" : "", values.network ? "--network" : ""].filter(
    Boolean,
  );
  if (chosen.length > 1) return fail(`${chosen.join(" and ")} exclude each other`);
  if (values.boot !== undefined && values.boot !== "fresh") return fail(`--boot ${values.boot}: the only choice is --boot fresh`);
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) return fail(`--timeout ${values.timeout} is not a positive number of seconds`);
  let upstream: UpstreamChoice | null = null;
  if (values.recordings) {
    for (const dir of values.recordings) {
      if (!existsSync(dir)) return fail(`--recordings ${dir}: no such directory`);
      // The folder itself may be a link the tester chose; what is inside it is not followed.
      const inside = symlinksUnder(realpathSync(dir));
      if (inside.length > 0) return fail(`--recordings ${dir}: symlink-refused: it holds symbolic links (${inside.join(", ")})`);
    }
    upstream = { kind: "recordings", dirs: values.recordings.map((d) => resolve(d)) };
  } else if (values.upstream) {
    let url: URL;
    try {
      url = new URL(values.upstream);
    } catch {
      return fail(`--upstream ${values.upstream} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return fail(`--upstream ${values.upstream}: only http: and https: servers`);
    upstream = { kind: "local", url: url.href };
  } else if (values.network) upstream = { kind: "network" };

  // Every file is read and checked before any guest starts: a bad one is bad input, not a failed run.
  const files: LessonFile[] = [];
  for (const arg of positionals) {
    try {
      files.push(await readLessonFile(arg));
    } catch (error) {
      if (error instanceof BadInput) return fail(error.message);
      throw error;
    }
  }
  const recordTo = values["record-windows"];
  const options: RunOptions = {
    upstream,
    cold: values.boot === "fresh",
    timeoutMs: timeoutS * 1000,
    out,
    ...(recordTo === undefined ? {} : { recorded: [] }),
  };
  const failed: string[] = [];
  for (const file of files) {
    try {
      const failure = await runLesson(file, options);
      if (failure) failed.push(`${file.path} (${failure})`);
    } catch (error) {
      out(`  FAIL ${file.path}: the guest did not run it: ${messageOf(error)}`);
      failed.push(`${file.path} (the guest did not run it)`);
    }
  }
  if (recordTo !== undefined && options.recorded) {
    // Times and seqs are kept as they were: the judge reads neither.
    await writeFile(recordTo, `${JSON.stringify(options.recorded, null, 2)}\n`);
    out(`${options.recorded.length} command window(s) written to ${recordTo}`);
  }
  out(
    failed.length === 0
      ? `all ${files.length} lesson(s) passed`
      : `${failed.length} of ${files.length} lesson(s) failed: ${failed.join("; ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}
