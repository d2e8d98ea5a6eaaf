import { describe, expect, it } from "vitest";
import { parseCommandLine, UsageError } from "./args";

const options = { registry: { type: "string" }, log: { type: "boolean" }, resolve: { type: "string", multiple: true } } as const;

describe("a command's arguments, read by node:util's parseArgs", () => {
  it("gives the flags (a repeated one as a list, `--x=v` as `--x v`) and the positionals", () => {
    const { values, positionals } = parseCommandLine({
      args: ["search", "--registry=https://r.example", "q", "--log", "--resolve", "a=1", "--resolve", "b=2"],
      options,
      allowPositionals: true,
    });
    expect(values).toEqual({ registry: "https://r.example", log: true, resolve: ["a=1", "b=2"] });
    expect(positionals).toEqual(["search", "q"]);
  });

  it.each([
    ["an unknown option", ["--strict"], "unknown option --strict"],
    ["a flag without its value", ["--registry"], "--registry needs a value"],
    ["a value given to a switch", ["--log=yes"], "--log takes no value"],
    ["a positional where none is taken", ["extra"], "unexpected argument extra"],
  ])("refuses %s with a UsageError naming it", (_, args, sentence) => {
    const read = () => parseCommandLine({ args, options });
    expect(read).toThrow(UsageError);
    expect(read).toThrow(sentence);
  });
});
