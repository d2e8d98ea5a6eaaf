import { describe, expect, it } from "vitest";
import { fakeTimers } from "../platform/testing/fake-timers";
import { attachGuestControl, type ControlPorts, createGuestControl, GuestControlError, winsizeRequest } from "./guest-control";

const ANSWER_WITHIN_MS = 15_000;

function wired() {
  const sent: string[] = [];
  const timers = fakeTimers();
  const control = createGuestControl((bytes) => sent.push(new TextDecoder().decode(bytes)), { timers, answerWithinMs: ANSWER_WITHIN_MS });
  const answer = (text: string) => {
    for (const byte of new TextEncoder().encode(text)) control.receive(byte);
  };
  return { control, sent, answer, timers };
}

describe("the guest's control line", () => {
  it("sends a request as one line with its ID and resolves at the guest's `ok` for that ID, with what follows it", async () => {
    const { control, sent, answer } = wired();
    let result: string | null = null;
    const asked = control.request("prepare-state").then((r) => (result = r));
    expect(sent).toEqual(["1 prepare-state\n"]);
    answer("1 ok zeroed 64");
    await Promise.resolve();
    expect(result).toBeNull();
    answer("424 kB\n");
    await asked;
    expect(result).toBe("zeroed 64424 kB");
  });

  it("ties each answer to its request by ID, a refusal with the guest's reason", async () => {
    const { control, sent, answer } = wired();
    const order: string[] = [];
    const first = control.request("winsize 50 200").then(() => order.push("first"));
    const second = control.request("flip").then(
      () => order.push("second"),
      (error: Error) => order.push(`second: ${error.message}`),
    );
    expect(sent).toEqual(["1 winsize 50 200\n", "2 flip\n"]);
    answer("2 error unknown request\r\n1 ok\n");
    await Promise.all([first, second]);
    expect(order).toEqual(["second: the guest refused flip: unknown request", "first"]);
  });

  it("a request whose answer never came leaves the next ones matched", async () => {
    const { control, answer } = wired();
    const lost = control.request("winsize 24 80");
    let lostSettled = false;
    lost.then(
      () => (lostSettled = true),
      () => (lostSettled = true),
    );
    const next = control.request("fresh 1 2 00");
    answer("2 ok\n");
    await expect(next).resolves.toBe("");
    expect(lostSettled).toBe(false);
  });

  it("fails a request the guest does not answer in time, and ignores its answer if it comes later", async () => {
    const { control, answer, timers } = wired();
    const asked = control.request("fresh 1 2 00");
    const failed = expect(asked).rejects.toThrow("the guest did not answer fresh within 15 s");
    await timers.advance(ANSWER_WITHIN_MS - 1);
    const next = control.request("winsize 24 80");
    await timers.advance(1);
    await failed;
    answer("1 ok\n2 ok\n");
    await expect(next).resolves.toBe("");
    expect(timers.armed()).toEqual([]);
  });

  it("ignores a line that answers nothing it asked (no ID, an unknown ID, a line without one)", async () => {
    const { control, answer } = wired();
    answer("1 ok\n"); // before any request
    const asked = control.request("winsize 1 1");
    answer("0 error a request is ID REQUEST\nhello\n7 ok\n");
    let settled = false;
    asked.then(
      () => (settled = true),
      () => (settled = true),
    );
    await Promise.resolve();
    expect(settled).toBe(false);
    answer("2 ok\n1 ok\n");
    await expect(asked).resolves.toBe("");
  });

  it("rejects an answer it does not understand for its request", async () => {
    const { control, answer } = wired();
    const asked = control.request("winsize 1 1");
    answer("1 maybe\n");
    await expect(asked).rejects.toThrow(/answered winsize with something unexpected: "maybe"/);
  });

  it("drops an over-long answer line without keeping it, and reads the next", async () => {
    const { control, answer } = wired();
    const asked = control.request("winsize 1 1");
    answer(`1 ${"x".repeat(10_000)}\n`);
    answer("1 ok\n");
    await expect(asked).resolves.toBe("");
  });

  it("refuses a request of more than one line, or longer than the guest reads, without sending it", async () => {
    const { control, sent } = wired();
    await expect(control.request("winsize 1 1\nprepare-state")).rejects.toThrow(/one line/);
    await expect(control.request(`fresh ${"0".repeat(1700)}`)).rejects.toThrow(/at most 1600 bytes/);
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

describe("the guest's own lines on the control line", () => {
  it("hands each audit record to the listeners and never takes it for an answer", async () => {
    const { control, answer } = wired();
    const records: [number, string][] = [];
    control.onAuditRecord((type, text) => records.push([type, text]));
    const asked = control.request("winsize 24 80");
    answer("audit 1423 audit(1.5:7): domain=77 blockers=net.connect_tcp daddr=93.184.216.34 dest=443\n1 ok\n");
    await expect(asked).resolves.toBe("");
    expect(records).toEqual([[1423, "audit(1.5:7): domain=77 blockers=net.connect_tcp daddr=93.184.216.34 dest=443"]]);
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

describe("the control line on an emulator", () => {
  it("rides its second serial port: requests go out on port 1, answers come in as serial1 bytes", async () => {
    const out: { port: number; text: string }[] = [];
    const listeners = new Map<string, (byte: number) => void>();
    const emulator = {
      serial_send_bytes: (port: number, bytes: Uint8Array) => out.push({ port, text: new TextDecoder().decode(bytes) }),
      add_listener: (event: string, listener: (byte: number) => void) => listeners.set(event, listener),
    };
    const control = attachGuestControl(emulator as unknown as ControlPorts, { timers: fakeTimers(), answerWithinMs: ANSWER_WITHIN_MS });
    const answered = control.request("winsize 24 80");
    expect(out).toEqual([{ port: 1, text: "1 winsize 24 80\n" }]);
    for (const byte of new TextEncoder().encode("1 ok\n")) listeners.get("serial1-output-byte")?.(byte);
    await expect(answered).resolves.toBe("");
  });
});
