import { describe, expect, it } from "vitest";
import { createConsentGate } from "./consent-gate";
import type { LessonPart, RelayPart } from "./proposal";

const lesson: LessonPart = { kind: "lesson", title: "T", from: "a draft link", steps: ["one"], setup: ["echo hi"], policy: null };
const relay: RelayPart = { kind: "relay", shown: "wss://relay.example/", host: "relay.example" };

describe("the consent gate", () => {
  it("asks only once every part the link carries is in, and one answer covers them all", async () => {
    const gate = createConsentGate(["lesson", "relay"]);
    const lessonAnswer = gate.offer(lesson);
    expect(gate.state().phase).toBe("gathering");
    gate.accept(); // the card is not shown yet: no answer can be given
    expect(gate.state().phase).toBe("gathering");
    const relayAnswer = gate.offer(relay);
    expect(gate.state()).toEqual({ phase: "asking", parts: [lesson, relay] });
    gate.accept();
    await expect(lessonAnswer).resolves.toBe(true);
    await expect(relayAnswer).resolves.toBe(true);
    await expect(gate.granted("relay")).resolves.toBe(true);
    expect(gate.state().phase).toBe("accepted");
  });

  it("a rejected card grants nothing, and a later accept does not change the answer", async () => {
    const gate = createConsentGate(["lesson"]);
    const answer = gate.offer(lesson);
    gate.reject();
    gate.accept();
    await expect(answer).resolves.toBe(false);
    await expect(gate.granted("lesson")).resolves.toBe(false);
    expect(gate.state().phase).toBe("rejected");
  });

  it("a withdrawn part is not waited for, and is never granted", async () => {
    const gate = createConsentGate(["lesson", "relay"]);
    gate.withdraw("lesson");
    const answer = gate.offer(relay);
    expect(gate.state().phase).toBe("asking");
    gate.accept();
    await expect(answer).resolves.toBe(true);
    await expect(gate.granted("lesson")).resolves.toBe(false);
  });

  it("a link that proposes nothing needing consent decides nothing and asks nothing", async () => {
    const gate = createConsentGate([]);
    expect(gate.state().phase).toBe("none");
    await expect(gate.granted("share")).resolves.toBe(false);
    const all = createConsentGate(["lesson"]);
    all.withdraw("lesson");
    expect(all.state().phase).toBe("none");
    await expect(all.granted("lesson")).resolves.toBe(false);
  });

  it("a part the link did not carry cannot be slipped in", async () => {
    const gate = createConsentGate(["lesson"]);
    await expect(gate.offer(relay)).resolves.toBe(false);
    expect(gate.state().parts).toEqual([]);
  });

  it("a listener that throws does not keep the others from hearing the change; its error is reported", () => {
    const errors: unknown[] = [];
    const gate = createConsentGate(["relay"], { onListenerError: (e) => errors.push(e) });
    const heard: string[] = [];
    gate.subscribe(() => {
      throw new Error("broken view");
    });
    gate.subscribe((s) => heard.push(s.phase));
    void gate.offer(relay);
    gate.reject();
    expect(heard).toEqual(["asking", "rejected"]);
    expect(errors).toHaveLength(2);
  });
});
