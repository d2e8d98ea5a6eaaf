import type { V86 } from "v86";
import { createEmitter, type Timers } from "../platform";

/**
 * The guest's control line: its second serial port (ttyS1), where guest/src/tab-control.c
 * listens. A host (the page's worker, the Node host, the build) sends one request per line,
 * `ID REQUEST`, and the guest answers each with one line, `ID ok` (perhaps with a word of
 * result) or `ID error REASON`. The ID ties an answer to its request, so one request whose
 * bytes were lost (sent while the guest could not read them) leaves the others matched. The
 * requests: the terminal's size (`winsize`), a restored guest's fresh clock and seed (`fresh`,
 * ./fresh-guest.ts), a lesson's `check` command run out of band (./guest-check.ts) and the
 * build's `prepare-state`.
 *
 * It replaced a prompt hook that ran a program before every prompt and read its requests from
 * the share (docs/decisions/0025-the-guest-control-line.md): nothing runs in the guest until
 * the host asks, and a new terminal size reaches the guest at once, not at its next prompt.
 *
 * The guest also writes lines nobody asked for: `audit TYPE TEXT`, the kernel's Landlock audit
 * records (guest/src/tab-audit.c, docs/decisions/0029), handed to `onAuditRecord` listeners.
 */

export interface GuestControlOptions {
  /** The timers the line's time limit runs on, which hosts pass in. */
  timers: Timers;
  /**
   * How long a request waits for its answer before it fails: a guest without tab-control, or a
   * request whose bytes were lost, never answers.
   */
  answerWithinMs: number;
}

/** v86's number for the guest's ttyS1 (serial_send_bytes, serial1-output-byte). */
const CONTROL_SERIAL = 1;
/** An answer line longer than this is not one: the longest is a check's, 1024 bytes of output in base64. */
const MAX_ANSWER = 2048;
/** The guest reads at most this much of a line (tab-control.c, MAX_LINE), the ID included. */
const MAX_CONTROL_LINE = 1600;
/** IDs the guest takes: 1 to 9 digits. */
const MAX_ID = 999_999_999;

export interface GuestControl {
  /** A byte the guest wrote on its control port. */
  receive(byte: number): void;
  /**
   * Sends one request line; resolves with what follows the guest's `ok` (often nothing),
   * rejects with a GuestControlError carrying the guest's reason. `answerWithinMs` replaces the
   * line's own time limit for a request that takes longer by design (a check).
   */
  request(line: string, options?: { answerWithinMs?: number }): Promise<string>;
  /** The machine is gone: what still waits for an answer is rejected with `reason`. */
  close(reason: string): void;
  /** Calls `listener` with each audit record the guest hands on (its type, 1423 or 1424, and its text). */
  onAuditRecord(listener: (type: number, text: string) => void): void;
}

export class GuestControlError extends Error {
  override name = "GuestControlError";
}

/** The request that sets the guest's terminal size (what `stty size` then says). */
export function winsizeRequest(rows: number, cols: number): string {
  const valid = (n: number) => Number.isInteger(n) && n >= 1 && n <= 9999;
  if (!valid(rows) || !valid(cols))
    throw new GuestControlError(`a terminal of ${rows} rows and ${cols} columns cannot be told to the guest`);
  return `winsize ${rows} ${cols}`;
}

interface Waiter {
  what: string;
  resolve(result: string): void;
  reject(error: Error): void;
  timer: unknown;
}

/** What a host's emulator offers the control line: v86's serial ports (the second is the line). */
export type ControlPorts = Pick<V86, "serial_send_bytes" | "add_listener">;

/** The control line on an emulator's second serial port: every host wires it this one way. */
export function attachGuestControl(emulator: ControlPorts, options: GuestControlOptions): GuestControl {
  const control = createGuestControl((bytes) => emulator.serial_send_bytes(CONTROL_SERIAL, bytes), options);
  emulator.add_listener(`serial${CONTROL_SERIAL}-output-byte`, (byte) => control.receive(byte));
  return control;
}

/** `send` writes bytes to the guest's control port (v86: serial_send_bytes(CONTROL_SERIAL, …)). */
export function createGuestControl(send: (bytes: Uint8Array) => void, options: GuestControlOptions): GuestControl {
  const { timers, answerWithinMs } = options;
  const waiting = new Map<number, Waiter>();
  let lastId = 0;
  let answer = "";
  let overlong = false;
  let closed: string | null = null;
  const auditRecords = createEmitter<{ type: number; text: string }>();

  const answered = (text: string) => {
    const record = /^audit (\d{1,5}) (.*)$/s.exec(text);
    if (record) {
      auditRecords.emit({ type: Number(record[1]), text: record[2] ?? "" });
      return;
    }
    const m = /^(\d{1,9}) (.*)$/s.exec(text);
    const waiter = m ? waiting.get(Number(m[1])) : undefined;
    if (!m || !waiter) return; // not an answer to anything of ours (or one past its time)
    waiting.delete(Number(m[1]));
    timers.clearTimeout(waiter.timer);
    const body = m[2] ?? "";
    if (body === "ok" || body.startsWith("ok ")) waiter.resolve(body.slice(3));
    else if (body.startsWith("error "))
      waiter.reject(new GuestControlError(`the guest refused ${waiter.what}: ${body.slice("error ".length)}`));
    else
      waiter.reject(
        new GuestControlError(
          `the guest's control line answered ${waiter.what} with something unexpected: ${JSON.stringify(body.slice(0, 80))}`,
        ),
      );
  };

  return {
    receive(byte) {
      if (byte === 0x0a) {
        if (!overlong) answered(answer.replace(/\r$/, ""));
        answer = "";
        overlong = false;
      } else if (!overlong) {
        answer += String.fromCharCode(byte);
        if (answer.length > MAX_ANSWER) {
          overlong = true;
          answer = "";
        }
      }
    },
    request(line, options = {}) {
      if (closed !== null) return Promise.reject(new GuestControlError(closed));
      lastId = lastId >= MAX_ID ? 1 : lastId + 1;
      const id = lastId;
      const text = `${id} ${line}`;
      if (/[\r\n]/.test(line) || text.length > MAX_CONTROL_LINE)
        return Promise.reject(new GuestControlError(`a control request is one line of at most ${MAX_CONTROL_LINE} bytes with its ID`));
      const what = line.split(" ")[0] ?? line;
      const within = options.answerWithinMs ?? answerWithinMs;
      return new Promise<string>((resolve, reject) => {
        const timer = timers.setTimeout(() => {
          waiting.delete(id);
          reject(new GuestControlError(`the guest did not answer ${what} within ${within / 1000} s`));
        }, within);
        waiting.set(id, { what, resolve, reject, timer });
        send(new TextEncoder().encode(`${text}\n`));
      });
    },
    close(reason) {
      closed = reason;
      for (const waiter of waiting.values()) {
        timers.clearTimeout(waiter.timer);
        waiter.reject(new GuestControlError(reason));
      }
      waiting.clear();
    },
    onAuditRecord(listener) {
      auditRecords.subscribe(({ type, text }) => listener(type, text));
    },
  };
}
