import { describe, expect, it } from "vitest";
import { createGuestControl, GuestControlError, winsizeRequest } from "./guest-control";

function wired() {
  const sent: string[] = [];
  const control = createGuestControl((bytes) => sent.push(new TextDecoder().decode(bytes)));
  const answer = (text: string) => {
    for (const byte of new TextEncoder().encode(text)) control.receive(byte);
  };
  return { control, sent, answer };
}

describe("the guest's control line", () => {
  it("sends a request as one line and resolves at the guest's `ok` line, with what follows it", async () => {
    const { control, sent, answer } = wired();
    let result: string | null = null;
    const asked = control.request("prepare-state").then((r) => (result = r));
    expect(sent).toEqual(["prepare-state\n"]);
    answer("ok zeroed 64");
    await Promise.resolve();
    expect(result).toBeNull();
    answer("424 kB\n");
    await asked;
    expect(result).toBe("zeroed 64424 kB");
  });

  it("matches answers to requests in order, a refusal with the guest's reason", async () => {
    const { control, answer } = wired();
    const order: string[] = [];
    const first = control.request("winsize 50 200").then(() => order.push("first"));
    const second = control.request("flip").then(
      () => order.push("second"),
      (error: Error) => order.push(`second: ${error.message}`),
    );
    answer("ok\r\nerror unknown request\n");
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second: the guest refused flip: unknown request"]);
  });

  it("rejects an answer it does not know, and ignores a line nobody asked for", async () => {
    const { control, answer } = wired();
    answer("ok\n"); // before any request: not an answer
    const asked = control.request("winsize 1 1");
    answer("hello\n");
    await expect(asked).rejects.toThrow(/answered winsize with something unexpected: "hello"/);
  });

  it("rejects an over-long answer line without keeping it", async () => {
    const { control, answer } = wired();
    const asked = control.request("winsize 1 1");
    answer(`${"x".repeat(10_000)}\n`);
    await expect(asked).rejects.toBeInstanceOf(GuestControlError);
    const next = control.request("winsize 1 1");
    answer("ok\n");
    await expect(next).resolves.toBe("");
  });

  it("refuses a request of more than one line, or longer than the guest reads, without sending it", async () => {
    const { control, sent } = wired();
    await expect(control.request("winsize 1 1\nprepare-state")).rejects.toThrow(/one line/);
    await expect(control.request(`fresh ${"0".repeat(700)}`)).rejects.toThrow(/at most 600 bytes/);
    expect(sent).toEqual([]);
  });

  it("rejects what waits when the machine is gone, and every later request", async () => {
    const { control } = wired();
    const asked = control.request("winsize 1 1");
    control.close("the machine stopped");
    await expect(asked).rejects.toThrow("the machine stopped");
    await expect(control.request("winsize 1 1")).rejects.toThrow("the machine stopped");
  });
});

describe("the terminal size told to the guest", () => {
  it("is rows then columns", () => {
    expect(winsizeRequest(50, 200)).toBe("winsize 50 200");
  });

  it("refuses a size the guest's terminal cannot have", () => {
    for (const [rows, cols] of [
      [0, 80],
      [24, 10_000],
      [2.5, 80],
      [Number.NaN, 80],
    ] as const)
      expect(() => winsizeRequest(rows, cols)).toThrow(GuestControlError);
  });
});
