import { describe, expect, it } from "vitest";
import { createConsoleTurns } from "./console-turns";

describe("one conversation with the guest console at a time", () => {
  it("runs turns one after another, in the order they were asked for", async () => {
    const turns = createConsoleTurns();
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = turns.take(async () => {
      seen.push("first typed");
      await gate;
      seen.push("first done");
    });
    const second = turns.take(async () => {
      seen.push("second typed");
    });
    await Promise.resolve();
    expect(seen).toEqual(["first typed"]);
    expect(turns.busy).toBe(true);
    release();
    await Promise.all([first, second]);
    expect(seen).toEqual(["first typed", "first done", "second typed"]);
    expect(turns.busy).toBe(false);
  });

  it("a failed turn passes its error to its caller and does not block the next", async () => {
    const turns = createConsoleTurns();
    await expect(turns.take(async () => Promise.reject(new Error("guest gone")))).rejects.toThrow("guest gone");
    await expect(turns.take(async () => "next")).resolves.toBe("next");
  });
});
