import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { untilShutdownSignal } from "./shutdown-signal";

describe("untilShutdownSignal", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "resolves at %s and leaves no handler behind, so a second signal ends the process",
    async (signal) => {
      const source = new EventEmitter();
      const heard = untilShutdownSignal(source);
      expect(source.listenerCount("SIGINT") + source.listenerCount("SIGTERM")).toBe(2);
      source.emit(signal);
      await expect(heard).resolves.toBe(signal);
      expect(source.listenerCount("SIGINT") + source.listenerCount("SIGTERM")).toBe(0);
    },
  );

  it("does not resolve before a signal comes", async () => {
    const source = new EventEmitter();
    let resolved = false;
    void untilShutdownSignal(source).then(() => (resolved = true));
    source.emit("SIGHUP");
    await new Promise<void>((r) => setImmediate(r));
    expect(resolved).toBe(false);
  });
});
