import { decodeUtf8, fromBase64, toBase64, utf8 } from "../bytes";
import { type GuestControl, GuestControlError } from "./guest-control";

/**
 * A lesson's `check:` command run out of band (guest/src/tab-check.c): the guest's control
 * line asks tab-control to run it with `/bin/sh -c`, in a session of its own with no terminal,
 * so nothing of it reaches the learner's shell or screen. Both hosts (the page's worker, the
 * Node host) run checks through this one function.
 */

/** Whose eyes a check sees the guest with: root in `/`, or the console shell's user and working directory. */
export type CheckUser = "root" | "learner";

export interface GuestCheck {
  command: string;
  as: CheckUser;
  /** Past it the guest kills the check's whole process group. */
  timeoutMs: number;
}

export interface GuestCheckResult {
  /** The exit status (128 + N when killed by signal N); null when it never reported one. */
  status: number | null;
  timedOut: boolean;
  /** The start of its output (stdout and stderr), at most 1 024 bytes (tab-check.c, CHECK_OUTPUT_MAX). */
  output: string;
}

/** The longest command the guest runs as a check (tab-check.c, CHECK_COMMAND_MAX). */
export const CHECK_COMMAND_MAX = 1000;
/** The longest time limit the guest takes (tab-check.c, CHECK_MAX_MS). */
export const CHECK_TIMEOUT_MAX_MS = 60_000;
/** Beyond a check's own limit, how long its answer may take to come back on the line. */
const ANSWER_GRACE_MS = 5_000;

/** The request line for one check: `check AS MILLISECONDS BASE64`. Throws when the guest would refuse it. */
export function checkRequest(check: GuestCheck): string {
  const bytes = utf8(check.command);
  if (bytes.length === 0 || bytes.length > CHECK_COMMAND_MAX || bytes.includes(0))
    throw new GuestControlError(`a check is 1 to ${CHECK_COMMAND_MAX} bytes with no NUL (this one is ${bytes.length})`);
  const ms = Math.ceil(check.timeoutMs);
  if (!Number.isFinite(ms) || ms < 1 || ms > CHECK_TIMEOUT_MAX_MS)
    throw new GuestControlError(`a check's time limit is 1 to ${CHECK_TIMEOUT_MAX_MS} ms (this one is ${check.timeoutMs})`);
  return `check ${check.as} ${ms} ${toBase64(bytes)}`;
}

/** Reads what follows the guest's `ok` for a check: `STATUS BASE64` or `timeout BASE64`. */
export function parseCheckAnswer(text: string): GuestCheckResult {
  const m = /^(timeout|\d{1,3}) ([A-Za-z0-9+/]*={0,2})$/.exec(text);
  if (!m || (m[2] ?? "").length % 4 !== 0)
    throw new GuestControlError(`the guest's answer to a check is not STATUS BASE64: ${JSON.stringify(text.slice(0, 80))}`);
  const output = decodeUtf8(fromBase64(m[2] ?? ""));
  return m[1] === "timeout" ? { status: null, timedOut: true, output } : { status: Number(m[1]), timedOut: false, output };
}

/**
 * Runs one check on the guest and resolves with how it ended. A check the guest refused or did
 * not answer resolves with no status and the reason as its output (a check that could not be
 * run fails its step, saying why); it never rejects.
 */
export async function runGuestCheck(control: GuestControl, check: GuestCheck): Promise<GuestCheckResult> {
  try {
    const line = checkRequest(check);
    const answer = await control.request(line, { answerWithinMs: check.timeoutMs + ANSWER_GRACE_MS });
    return parseCheckAnswer(answer);
  } catch (error) {
    return { status: null, timedOut: false, output: (error as Error).message };
  }
}

/** A running guest that can run checks out of band (the page's guest, through its worker). */
export interface GuestChecks {
  runCheck(check: GuestCheck): Promise<GuestCheckResult>;
}
