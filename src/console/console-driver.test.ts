import { describe, expect, it } from "vitest";
import { createConsoleDriver } from "./console-driver";
import { fakeConsole, prompt } from "./testing/fake-console";

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("the console driver", () => {
  it("run resolves with the command's output and status when its D mark arrives", async () => {
    const { console, typed, out } = fakeConsole();
    const driver = createConsoleDriver(console);
    const result = driver.run("echo hi");
    await settle();
    expect(typed).toEqual(["echo hi"]);
    out(`echo hi\r\nhi\r\n${prompt(0)}`);
    expect(await result).toEqual({ command: "echo hi", output: "hi\n", status: 0, interrupted: false });
  });

  it("a command waits while a person's command runs, says so, and is typed after it ended", async () => {
    const { console, typed, out, tracker } = fakeConsole();
    const driver = createConsoleDriver(console);
    tracker.userInput("sleep 4\r");
    const waits: boolean[] = [];
    const result = driver.run("true", { onWaiting: (w) => waits.push(w) });
    await settle();
    expect(typed).toEqual([]);
    expect(waits).toEqual([true]);
    out(`sleep 4\r\n${prompt(0)}`);
    await settle();
    expect(typed).toEqual(["true"]);
    expect(waits).toEqual([true, false]);
    out(`true\r\n${prompt(0)}`);
    expect((await result).status).toBe(0);
  });

  it("two commands run one after another, each with its own result", async () => {
    const { console, typed, out } = fakeConsole();
    const driver = createConsoleDriver(console);
    const first = driver.run("echo one");
    const second = driver.run("echo two");
    await settle();
    expect(typed).toEqual(["echo one"]);
    out(`echo one\r\none\r\n${prompt(0)}`);
    await settle();
    expect(typed).toEqual(["echo one", "echo two"]);
    out(`echo two\r\ntwo\r\n${prompt(0)}`);
    expect((await first).output).toBe("one\n");
    expect((await second).output).toBe("two\n");
  });

  it("a command cancelled while waiting is never typed, and the next one still waits its turn", async () => {
    const { console, typed, out, tracker } = fakeConsole();
    const driver = createConsoleDriver(console);
    tracker.userInput("sleep 4\r");
    const controller = new AbortController();
    const cancelled = driver.run("echo never", { signal: controller.signal });
    const later = driver.run("echo later");
    controller.abort(new Error("cancelled"));
    await expect(cancelled).rejects.toThrow("cancelled");
    await settle();
    expect(typed).toEqual([]);
    out(`sleep 4\r\n${prompt(0)}`);
    await settle();
    expect(typed).toEqual(["echo later"]);
    out(`echo later\r\nlater\r\n${prompt(0)}`);
    expect((await later).output).toBe("later\n");
  });

  it("Ctrl+C during the command makes it interrupted with status 130", async () => {
    const { console, typed, out } = fakeConsole();
    const driver = createConsoleDriver(console);
    const result = driver.run("sleep 30");
    await settle();
    driver.interrupt();
    expect(typed).toEqual(["sleep 30", "\x03"]);
    out(`sleep 30\r\n^C\r\n${prompt(130)}`);
    expect(await result).toMatchObject({ status: 130, interrupted: true });
  });
});
