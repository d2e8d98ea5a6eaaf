import { describe, expect, it } from "vitest";
import { createProgressStore, type TextStore } from "./progress-store";

const memory = (initial: string | null = null): TextStore & { text: string | null } => {
  const s = {
    text: initial,
    read: () => s.text,
    write: (t: string) => {
      s.text = t;
      return true;
    },
  };
  return s;
};
const PIN = "a".repeat(64);
const record = { title: "T", steps: 3, passed: 1, run: { step: 1 }, savedAt: 1 };

describe("lesson progress kept in this browser", () => {
  it("progress put under a lesson's pin is read back by a new store (a reload)", () => {
    const text = memory();
    createProgressStore(text).put(PIN, record);
    expect(createProgressStore(text).get(PIN)).toEqual(record);
  });
  it("forgetting a lesson's progress (Restart) leaves the others", () => {
    const text = memory();
    const store = createProgressStore(text);
    store.put(PIN, record);
    store.put("b".repeat(64), record);
    store.forget(PIN);
    expect(store.get(PIN)).toBeNull();
    expect(store.get("b".repeat(64))).toEqual(record);
  });
  it("unreadable saved progress starts afresh and says why", () => {
    const store = createProgressStore(memory("{not json"));
    expect(store.get(PIN)).toBeNull();
    expect(store.problem).toContain("not JSON");
  });
  it("saved progress in the wrong form starts afresh and says why", () => {
    const store = createProgressStore(memory(JSON.stringify({ [PIN]: { title: 3 } })));
    expect(store.get(PIN)).toBeNull();
    expect(store.problem).toContain("expected form");
  });
});
