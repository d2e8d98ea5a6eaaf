import { describe, expect, it } from "vitest";
import { createShellMarkSplitter, parseOsc133, type ShellPiece } from "./shell-marks";

const PROMPT = "\x1b]133;D;0\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07\x1b[6n";
const texts = (pieces: ShellPiece[]) => pieces.flatMap((p) => (p.type === "text" ? [p.text] : []));
const kinds = (pieces: ShellPiece[]) => pieces.map((p) => (p.type === "mark" ? p.mark.kind : p.type));

describe("OSC 133 marks", () => {
  it("a D mark carries the previous command's exit status", () => {
    expect(parseOsc133("D;130")).toEqual({ kind: "command-end", status: 130, prompt: null });
    expect(parseOsc133("D")).toEqual({ kind: "command-end", status: null, prompt: null });
    expect(parseOsc133("D;0;prompt=12")).toEqual({ kind: "command-end", status: 0, prompt: 12 });
    expect(parseOsc133("D;0;aid=x;prompt=x")).toEqual({ kind: "command-end", status: 0, prompt: null });
    expect(parseOsc133("A")).toEqual({ kind: "prompt-start" });
    expect(parseOsc133("B")).toEqual({ kind: "command-start" });
    expect(parseOsc133("C")).toEqual({ kind: "output-start" });
  });

  it("an unknown OSC 133 payload is not a mark", () => {
    expect(parseOsc133("P;k=v")).toBeNull();
  });

  it("the guest's prompt splits into its marks, the prompt text and the cursor query, in order", () => {
    const pieces = createShellMarkSplitter().feed(`done\r\n${PROMPT}`);
    expect(kinds(pieces)).toEqual(["text", "command-end", "prompt-start", "text", "command-start", "cursor-query"]);
    expect(texts(pieces)).toEqual(["done\r\n", "guest:~# "]);
  });

  it("a mark cut between two chunks is recognised when the rest arrives", () => {
    const splitter = createShellMarkSplitter();
    const first = splitter.feed("out\x1b]133;D;1");
    const second = splitter.feed("27\x07rest");
    expect(texts(first)).toEqual(["out"]);
    expect(second[0]).toEqual({ type: "mark", mark: { kind: "command-end", status: 127, prompt: null }, raw: "\x1b]133;D;127\x07" });
    expect(texts(second)).toEqual(["rest"]);
  });

  it("a mark ended by ESC backslash (ST) is recognised too", () => {
    expect(kinds(createShellMarkSplitter().feed("\x1b]133;A\x1b\\x"))).toEqual(["prompt-start", "text"]);
  });

  it("colours, other OSC sequences and cursor moves stay in the text unchanged", () => {
    const text = "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[J\x1b[6D";
    expect(texts(createShellMarkSplitter().feed(text))).toEqual([text]);
  });

  it("an escape sequence that never ends is passed on as text instead of being held forever", () => {
    const splitter = createShellMarkSplitter();
    expect(splitter.feed("\x1b]2;")).toEqual([]);
    const long = "x".repeat(5000);
    expect(texts(splitter.feed(long)).join("")).toBe(`\x1b]2;${long}`);
  });
});
