/**
 * Semantic-prompt marks (OSC 133, the shell integration VS Code, iTerm2, WezTerm and Windows
 * Terminal use): the guest's PS1 (guest/rootfs/etc/profile) writes `ESC ] 133 ; D ; <status> ;
 * prompt=<n> BEL` (the previous command finished; n counts the shell's prompts), `A` (prompt
 * start) and `B` (prompt end: the command line starts). The line editor redraws its prompt,
 * marks and all, when the terminal's size changes or on Ctrl+L: a redrawn prompt repeats its
 * number. Busybox has no preexec hook, so `C` (output start) never comes from this guest; it is
 * understood anyway.
 */
export type ShellMark =
  | { kind: "prompt-start" }
  | { kind: "command-start" }
  | { kind: "output-start" }
  | { kind: "command-end"; status: number | null; prompt: number | null };

/** One piece of guest output: plain text, a mark, or the line editor's cursor query (`ESC[6n`). */
export type ShellPiece =
  | { type: "text"; text: string }
  | { type: "mark"; mark: ShellMark; raw: string }
  | { type: "cursor-query"; raw: string };

/** The payload of an OSC 133 sequence (what follows `133;`), e.g. `D;130`. Null when unknown. */
export function parseOsc133(payload: string): ShellMark | null {
  const [letter, ...args] = payload.split(";");
  switch (letter) {
    case "A":
      return { kind: "prompt-start" };
    case "B":
      return { kind: "command-start" };
    case "C":
      return { kind: "output-start" };
    case "D": {
      const status = args[0];
      const prompt = args.slice(1).find((arg) => /^prompt=\d{1,15}$/.test(arg));
      return {
        kind: "command-end",
        status: status !== undefined && /^\d{1,3}$/.test(status) ? Number(status) : null,
        prompt: prompt === undefined ? null : Number(prompt.slice("prompt=".length)),
      };
    }
    default:
      return null;
  }
}

const ESC = "\x1b";
const BEL = "\x07";
/** An escape sequence longer than this is not one we wait for: it is passed on as text. */
const MAX_SEQUENCE = 4096;

export interface ShellMarkSplitter {
  /** Splits decoded output into pieces; a sequence cut at the end of a chunk waits for the next. */
  feed(text: string): ShellPiece[];
}

/**
 * Splits the guest's output stream into text, OSC 133 marks and cursor queries, in order.
 * Everything else (colours, other OSC, cursor movement) stays in the text untouched.
 */
export function createShellMarkSplitter(): ShellMarkSplitter {
  let pending = "";
  return {
    feed(chunk) {
      const buf = pending + chunk;
      pending = "";
      const out: ShellPiece[] = [];
      const text = (t: string) => {
        if (t === "") return;
        const last = out[out.length - 1];
        if (last?.type === "text") last.text += t;
        else out.push({ type: "text", text: t });
      };
      let i = 0;
      while (i < buf.length) {
        const esc = buf.indexOf(ESC, i);
        if (esc < 0) {
          text(buf.slice(i));
          break;
        }
        text(buf.slice(i, esc));
        const end = sequenceEnd(buf, esc);
        if (end === "incomplete") {
          if (buf.length - esc > MAX_SEQUENCE) {
            text(buf.slice(esc));
          } else pending = buf.slice(esc);
          break;
        }
        const raw = buf.slice(esc, end);
        i = end;
        const terminator = raw.endsWith(BEL) ? 1 : raw.endsWith(`${ESC}\\`) ? 2 : 0;
        if (raw.startsWith(`${ESC}]133;`) && terminator > 0) {
          const mark = parseOsc133(raw.slice(6, -terminator));
          if (mark) out.push({ type: "mark", mark, raw });
          continue;
        }
        if (raw === `${ESC}[6n`) out.push({ type: "cursor-query", raw });
        else text(raw);
      }
      return out;
    },
  };
}

/** Where the escape sequence starting at `at` ends (exclusive), or "incomplete". */
function sequenceEnd(buf: string, at: number): number | "incomplete" {
  const kind = buf[at + 1];
  if (kind === undefined) return "incomplete";
  if (kind === "]") {
    for (let j = at + 2; j < buf.length; j++) {
      if (buf[j] === BEL) return j + 1;
      if (buf[j] === ESC) {
        if (j + 1 >= buf.length) return "incomplete";
        return buf[j + 1] === "\\" ? j + 2 : j;
      }
    }
    return "incomplete";
  }
  if (kind === "[") {
    for (let j = at + 2; j < buf.length; j++) {
      const c = buf.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j + 1;
    }
    return "incomplete";
  }
  return at + 2;
}
