import { describe, expect, it } from "vitest";
import { fakeTimers } from "../platform/testing/fake-timers";
import { createGuestControl } from "./guest-control";
import { checkRequest, parseCheckAnswer, runGuestCheck } from "./guest-control-check";

/** A control line whose time limits fire when the test moves time, and what was sent on it. */
function wired() {
  const sent: string[] = [];
  const timers = fakeTimers();
  const control = createGuestControl((bytes) => sent.push(new TextDecoder().decode(bytes)), { timers, answerWithinMs: 15_000 });
  const answer = (text: string) => {
    for (const byte of new TextEncoder().encode(text)) control.receive(byte);
  };
  return { control, sent, answer, elapse: (ms: number) => timers.advance(ms) };
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("a check run out of band on the guest's control line", () => {
  it("is sent as `check AS MILLISECONDS BASE64`, the command's UTF-8 bytes in base64", () => {
    expect(checkRequest({ command: "test -s /tmp/note", as: "root", timeoutMs: 10_000 })).toBe(
      `check root 10000 ${b64("test -s /tmp/note")}`,
    );
    expect(checkRequest({ command: "grep -q é f", as: "learner", timeoutMs: 1500.2 })).toBe(`check learner 1501 ${b64("grep -q é f")}`);
  });

  it("refuses a command the guest would not run (empty, over 1000 bytes, a NUL) and a time limit outside 1 ms to 60 s", () => {
    expect(() => checkRequest({ command: "", as: "root", timeoutMs: 1000 })).toThrow(/1 to 1000 bytes/);
    expect(() => checkRequest({ command: "x".repeat(1001), as: "root", timeoutMs: 1000 })).toThrow(/1 to 1000 bytes/);
    expect(() => checkRequest({ command: "a\0b", as: "root", timeoutMs: 1000 })).toThrow(/no NUL/);
    expect(() => checkRequest({ command: "true", as: "root", timeoutMs: 60_001 })).toThrow(/1 to 60000 ms/);
    expect(() => checkRequest({ command: "true", as: "root", timeoutMs: 0 })).toThrow(/1 to 60000 ms/);
  });

  it("the longest check fits on the line the guest reads", () => {
    const { control, sent } = wired();
    void control.request(checkRequest({ command: "x".repeat(1000), as: "learner", timeoutMs: 60_000 }));
    expect(sent).toHaveLength(1);
  });

  it("reads the guest's answer: an exit status or `timeout`, and the output in base64", () => {
    expect(parseCheckAnswer(`0 ${b64("yes\n")}`)).toEqual({ status: 0, timedOut: false, output: "yes\n" });
    expect(parseCheckAnswer("137 ")).toEqual({ status: 137, timedOut: false, output: "" });
    expect(parseCheckAnswer(`timeout ${b64("partial")}`)).toEqual({ status: null, timedOut: true, output: "partial" });
    expect(() => parseCheckAnswer("maybe")).toThrow(/not STATUS BASE64/);
    expect(() => parseCheckAnswer("0 abc")).toThrow(/not STATUS BASE64/);
  });

  it("resolves with the check's status and output once the guest answers its ID, after the answers of requests sent later", async () => {
    const { control, sent, answer } = wired();
    const checked = runGuestCheck(control, { command: "sleep 1; test -f x", as: "root", timeoutMs: 5000 });
    const resized = control.request("winsize 24 80");
    expect(sent).toEqual([`1 check root 5000 ${b64("sleep 1; test -f x")}\n`, "2 winsize 24 80\n"]);
    answer("2 ok\n");
    await expect(resized).resolves.toBe("");
    answer(`1 ok 1 ${b64("no x")}\n`);
    await expect(checked).resolves.toEqual({ status: 1, timedOut: false, output: "no x" });
  });

  it("waits for the answer past the line's usual limit, up to the check's own limit and a grace, then fails it without a status", async () => {
    const { control, elapse } = wired();
    const checked = runGuestCheck(control, { command: "sleep 100", as: "root", timeoutMs: 30_000 });
    let settled = false;
    void checked.then(() => (settled = true));
    await elapse(30_000);
    expect(settled).toBe(false);
    await elapse(5_000);
    await expect(checked).resolves.toEqual({ status: null, timedOut: false, output: "the guest did not answer check within 35 s" });
  });

  it("a check the guest refuses, or one it could never take, resolves without a status and says why", async () => {
    const { control, answer } = wired();
    const refused = runGuestCheck(control, { command: "pwd", as: "learner", timeoutMs: 1000 });
    answer("1 error no learner's shell on the console\n");
    await expect(refused).resolves.toEqual({
      status: null,
      timedOut: false,
      output: "the guest refused check: no learner's shell on the console",
    });
    await expect(runGuestCheck(control, { command: "", as: "root", timeoutMs: 1000 })).resolves.toMatchObject({ status: null });
  });
});
