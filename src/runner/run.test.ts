import { describe, expect, it } from "vitest";
import { createConsoleDriver, type GuestPort } from "../console";
import { fakeConsole, prompt } from "../console/testing/fake-console";
import { type RunnerDeps, runAgent } from "./run";
import { runnerDeps } from "./testing/deps";

/**
 * A guest the test plays through its console: `answer` says what the guest prints when a
 * command is typed (its lines, then the status the command ends with); files written to its
 * share are kept.
 */
function fakeGuest(answer: (command: string) => { lines: string[]; status: number } | null) {
  const { console, tracker, typed, out } = fakeConsole();
  const listeners = new Set<(line: string) => void>();
  const files = new Map<string, Uint8Array>();
  const driver = createConsoleDriver(console);
  const guest: GuestPort = {
    driver,
    console: {
      shell: tracker,
      onLine: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    writeFile: async (path, bytes) => {
      files.set(path, bytes);
    },
  };
  let answered = 0;
  const poll = setInterval(() => {
    while (answered < typed.length) {
      const command = typed[answered++]!;
      const said = answer(command);
      if (!said) continue;
      for (const line of said.lines) for (const listener of listeners) listener(line);
      out(`${command}\r\n${said.lines.join("\r\n")}\r\n${prompt(said.status)}`);
    }
  }, 1);
  return { guest, typed, files, stop: () => clearInterval(poll) };
}

function deps(guest: GuestPort): RunnerDeps {
  return runnerDeps(Promise.resolve(guest));
}

describe("an agent run, seen through the guest's port", () => {
  it("delivers the runner's scripts and the run's files, types its command, and answers the outcome line of its own run", async () => {
    const played = fakeGuest(() => ({
      lines: [
        "tab-run: step=start run=run-other -- another run's lines are not this run's",
        "tab-run: outcome=failed stage=agent status=9 run=run-other",
        "tab-run: step=start run=run-abcd",
        "tab-agent: step=1 verb=list path=. outcome=ok entries=README.md",
        "tab-run: outcome=ok stage=done status=0 run=run-abcd",
      ],
      status: 0,
    }));
    const d = deps(played.guest);
    const result = await runAgent(d).finally(played.stop);
    expect(result).toMatchObject({ id: "run-abcd", harness: "demo", outcome: "ok", stage: "done", status: 0 });
    expect(played.typed).toEqual([result.command]);
    expect(result.lines.map((l) => l.fields.step)).toEqual(["start", "1", undefined]);
    expect(new TextDecoder().decode(played.files.get("bin/tab-run"))).toBe("#!/bin/sh\n");
    for (const file of result.delivered)
      expect(played.files.has(file.path) || [...played.files.keys()].some((p) => p.endsWith(`/${file.path}`))).toBe(true);
    const ends = d.log.events().filter((e) => e.kind === "scenario");
    expect(ends.map((e) => (e.kind === "scenario" ? [e.act, e.id, e.phase] : null))).toEqual([
      ["agent-run", "run-abcd", "start"],
      ["agent-run", "run-abcd", "done"],
    ]);
  });

  it("fails saying so when the runner ends without an outcome line", async () => {
    const played = fakeGuest(() => ({ lines: ["tab-run: step=start run=run-abcd"], status: 3 }));
    const d = deps(played.guest);
    const result = await runAgent(d).finally(played.stop);
    expect(result).toMatchObject({ outcome: "failed", stage: "outcome" });
    expect(
      d.log.events().some((e) => e.kind === "runner.step" && e.message === "the runner ended with exit status 3 and no outcome line"),
    ).toBe(true);
  });

  it("a run past its time limit types Ctrl+C and fails with the time it waited", async () => {
    const played = fakeGuest(() => null);
    const d = deps(played.guest);
    const result = await runAgent(d, { timeoutMs: 5 }).finally(played.stop);
    expect(result).toMatchObject({ outcome: "failed", stage: "timeout" });
    expect(played.typed.at(-1)).toBe("\x03");
  });

  it("a harness that does not resolve fails the run before anything is typed", async () => {
    const played = fakeGuest(() => null);
    const d = deps(played.guest);
    d.resolver = {
      resolveForRun: async () => ({ resolution: { ok: false, error: { code: "hash-missing", reason: "no pin" } } as never, session: null }),
    };
    const result = await runAgent(d, { harness: "https://x.example/h.yaml" }).finally(played.stop);
    expect(result).toMatchObject({ outcome: "failed", stage: "resolve" });
    expect(played.typed).toEqual([]);
  });
});
