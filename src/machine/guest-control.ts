/**
 * The guest's control line: its second serial port (ttyS1), where guest/src/tab-control.c
 * listens. A host (the page's worker, the Node host, the build) sends one request per line and
 * the guest answers each with one line, in order: `ok` (perhaps with a word of result) or
 * `error REASON`. The requests: the terminal's size (`winsize`), a restored guest's fresh clock
 * and seed (`fresh`, ./fresh-guest.ts) and the build's `prepare-state`.
 *
 * It replaced a prompt hook that ran a program before every prompt and read its requests from
 * the share (docs/performance.md, "The prompt hook and the control line"): nothing runs in the
 * guest until the host asks, and a new terminal size reaches the guest at once, not at its next
 * prompt.
 */

/** v86's number for the guest's ttyS1 (serial_send_bytes, serial1-output-byte). */
export const CONTROL_SERIAL = 1;
/** An answer line longer than this is not one: the guest's answers are a line of text. */
const MAX_ANSWER = 1024;
/** The guest reads at most this much of a request line (tab-control.c, MAX_LINE). */
const MAX_REQUEST = 600;

export interface GuestControl {
  /** A byte the guest wrote on its control port. */
  receive(byte: number): void;
  /**
   * Sends one request line; resolves with what follows the guest's `ok` (often nothing),
   * rejects with a GuestControlError carrying the guest's reason.
   */
  request(line: string): Promise<string>;
  /** The machine is gone: what still waits for an answer is rejected with `reason`. */
  close(reason: string): void;
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

/** `send` writes bytes to the guest's control port (v86: serial_send_bytes(CONTROL_SERIAL, …)). */
export function createGuestControl(send: (bytes: Uint8Array) => void): GuestControl {
  const waiting: { line: string; resolve: (result: string) => void; reject: (error: Error) => void }[] = [];
  let answer = "";
  let overlong = false;
  let closed: string | null = null;

  const answered = (text: string) => {
    const waiter = waiting.shift();
    if (!waiter) return; // nothing asked: not an answer to anything of ours
    const what = waiter.line.split(" ")[0];
    if (text === "ok" || text.startsWith("ok ")) waiter.resolve(text.slice(3));
    else if (text.startsWith("error ")) waiter.reject(new GuestControlError(`the guest refused ${what}: ${text.slice("error ".length)}`));
    else
      waiter.reject(
        new GuestControlError(`the guest's control line answered ${what} with something unexpected: ${JSON.stringify(text.slice(0, 80))}`),
      );
  };

  return {
    receive(byte) {
      if (byte === 0x0a) {
        answered(overlong ? "(an over-long line)" : answer.replace(/\r$/, ""));
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
    request(line) {
      if (closed !== null) return Promise.reject(new GuestControlError(closed));
      if (/[\r\n]/.test(line) || line.length > MAX_REQUEST)
        return Promise.reject(new GuestControlError(`a control request is one line of at most ${MAX_REQUEST} bytes`));
      return new Promise<string>((resolve, reject) => {
        waiting.push({ line, resolve, reject });
        send(new TextEncoder().encode(`${line}\n`));
      });
    },
    close(reason) {
      closed = reason;
      for (const waiter of waiting.splice(0)) waiter.reject(new GuestControlError(reason));
    },
  };
}
