import { describe, expect, it } from "vitest";
import { GuestConsole } from "./serial-console";

const bytes = (text: string) => new TextEncoder().encode(text);
// What the guest's shell prints for a prompt (guest/rootfs/etc/profile): the previous command's
// end, the prompt's start, the prompt, the command's start.
const PROMPT = "\x1b]133;D;0\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07";

function restoredConsole() {
  const sent: string[] = [];
  const shown: string[] = [];
  const console = new GuestConsole((text) => sent.push(text));
  console.onOutput((text) => shown.push(text));
  return { console, sent, shown };
}

describe("a restored guest's console", () => {
  it("asks for a fresh prompt with Enter, shows only that prompt, and resolves at it", async () => {
    const { console, sent, shown } = restoredConsole();
    const prompt = console.requestPrompt();
    expect(sent).toEqual(["\r"]);
    console.receive(bytes("\r\nleft over from before the state was saved\r\n"));
    console.receive(bytes(PROMPT));
    await prompt;
    expect(shown.join("")).not.toContain("left over");
    expect(shown.join("")).toContain("guest:~# ");
    expect(console.shell.idle).toBe(true);
  });

  it("can wait for a prompt someone else asked for, sending nothing itself", async () => {
    const { console, sent, shown } = restoredConsole();
    const prompt = console.expectPrompt();
    console.receive(bytes(`\r\nleft over\r\n${PROMPT}`));
    await prompt;
    expect(sent).toEqual([]);
    expect(shown.join("")).not.toContain("left over");
    expect(console.shell.idle).toBe(true);
  });
});
