import { describe, expect, it } from "vitest";
import { createEmitter } from "./emitter";
import { messageOf } from "./message-of";

describe("an emitter", () => {
  it("tells every subscribed listener, in the order they subscribed, until each unsubscribes", () => {
    const emitter = createEmitter<number>();
    const heard: string[] = [];
    const stopA = emitter.subscribe((n) => heard.push(`a${n}`));
    emitter.subscribe((n) => heard.push(`b${n}`));
    emitter.emit(1);
    stopA();
    emitter.emit(2);
    expect(heard).toEqual(["a1", "b1", "b2"]);
    expect(emitter.size).toBe(1);
  });

  it("isolates a listener that throws: the others still hear the value and the error goes to the sink", () => {
    const errors: unknown[] = [];
    const emitter = createEmitter<string>({ onListenerError: (e) => errors.push(e) });
    const heard: string[] = [];
    emitter.subscribe(() => {
      throw new Error("a broken view");
    });
    emitter.subscribe((v) => heard.push(v));
    expect(() => emitter.emit("x")).not.toThrow();
    expect(heard).toEqual(["x"]);
    expect(errors.map((e) => messageOf(e))).toEqual(["a broken view"]);
  });

  it("reports a listener's error on a later microtask by default, never to the emitter's caller", async () => {
    const emitter = createEmitter();
    emitter.subscribe(() => {
      throw new Error("reported later");
    });
    const seen: unknown[] = [];
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) =>
      original(() => {
        try {
          task();
        } catch (error) {
          seen.push(error);
        }
      });
    try {
      expect(() => emitter.emit()).not.toThrow();
      await Promise.resolve();
    } finally {
      globalThis.queueMicrotask = original;
    }
    expect(seen.map((e) => messageOf(e))).toEqual(["reported later"]);
  });

  it("tells this emit's listeners only: one subscribed while told hears the next emit", () => {
    const emitter = createEmitter<number>();
    const heard: number[] = [];
    emitter.subscribe(() => {
      emitter.subscribe((n) => heard.push(n));
    });
    emitter.emit(1);
    expect(heard).toEqual([]);
    emitter.emit(2);
    expect(heard).toEqual([2]);
  });

  it("keeps one subscription for a function subscribed twice, and clear removes every listener", () => {
    const emitter = createEmitter();
    let calls = 0;
    const listener = () => calls++;
    emitter.subscribe(listener);
    emitter.subscribe(listener);
    emitter.emit();
    expect(calls).toBe(1);
    emitter.clear();
    emitter.emit();
    expect(calls).toBe(1);
  });
});
