import { describe, expect, it } from "vitest";
import { parseGuestLine } from "./guest-lines";

describe("guest result lines become Kernel panel events (the guest's view, beside the kernel's audit records)", () => {
  it("reads the ruleset llrun applied", () => {
    expect(
      parseGuestLine("llrun: ruleset abi=6 fs_ro=/usr,/bin fs_rw=/tmp connect=3128 bind= scope=abstract-unix,signal dropped="),
    ).toMatchObject({
      kind: "kernel.ruleset",
      abi: 6,
      fsRo: ["/usr", "/bin"],
      fsRw: ["/tmp"],
      connect: [3128],
      bind: [],
      scope: ["abstract-unix", "signal"],
      dropped: [],
    });
  });

  it('keeps llrun\'s `*` (not restricted) as the item "*", and refuses a port list it cannot read', () => {
    expect(parseGuestLine("llrun: ruleset abi=6 fs_ro=* fs_rw=* connect=* bind=* scope= dropped=")).toMatchObject({
      fsRo: ["*"],
      fsRw: ["*"],
      connect: ["*"],
      bind: ["*"],
    });
    expect(parseGuestLine("llrun: ruleset abi=6 fs_ro=/ fs_rw=/tmp connect=31x8 bind=* scope= dropped=")).toBeNull();
  });

  it("reads a connect() refused by the kernel with EACCES (verdict table, row 6)", () => {
    expect(parseGuestLine("\x1b[0mtcpconnect: dst=93.184.216.34:443 result=EACCES errno=13\r")).toMatchObject({
      kind: "kernel.result",
      program: "tcpconnect",
      target: "93.184.216.34:443",
      result: "EACCES",
      errno: 13,
    });
  });

  it("ignores ordinary output", () => {
    expect(parseGuestLine("guest:~# ls")).toBeNull();
  });
});
