import { describe, expect, it } from "vitest";
import { createEventLog } from "./log";
import { compareSequences, decodeSequence, encodeSequence, verdictSequence } from "./verdict-sequence";

describe("verdict sequences for share links (same codes and deciders, not timings)", () => {
  const log = createEventLog();
  const decision = (code: "served" | "host-not-allowed", allowed: boolean, mode: "connect" | "own" = "connect") =>
    log.append({
      kind: "proxy.decision",
      id: "x",
      mode,
      method: "CONNECT",
      target: "h:443",
      status: 200,
      bytes: 0,
      durationMs: 1,
      allowed,
      code,
      reason: "r",
      by: "proxy",
    });

  it("takes proxy decisions and the kernel's own refusals in order, and skips the proxy's own endpoints and what a demo says it got", () => {
    decision("served", true);
    decision("served", true, "own");
    log.append({
      kind: "kernel.decision",
      allowed: false,
      code: "landlock-denied",
      by: "kernel",
      reason: "r",
      access: ["net.connect_tcp"],
      target: "1.2.3.4:443",
      program: "tcpconnect",
      pid: 9,
      domain: "77",
      record: "",
    });
    log.append({ kind: "kernel.result", program: "tcpconnect", target: "1.2.3.4:443", result: "EACCES", errno: 13, line: "" });
    decision("host-not-allowed", false);
    expect(verdictSequence(log.events())).toEqual([
      { code: "served", by: "proxy" },
      { code: "landlock-denied", by: "kernel" },
      { code: "host-not-allowed", by: "proxy" },
    ]);
  });

  it("round-trips through its link form and ignores malformed parts", () => {
    const steps = [
      { code: "served", by: "proxy" },
      { code: "sni-mismatch", by: "design" },
    ];
    expect(decodeSequence(`${encodeSequence(steps)},<script>,:x`)).toEqual(steps);
  });

  it("marks every position where the replay differs, including missing steps", () => {
    const diff = compareSequences(
      [
        { code: "served", by: "proxy" },
        { code: "ip-literal", by: "proxy" },
      ],
      [{ code: "served", by: "proxy" }],
    );
    expect(diff.map((d) => d.same)).toEqual([true, false]);
    expect(diff[1]?.actual).toBeNull();
  });

  it("a link made when the proxy's decider was called net replays as the proxy's", () => {
    expect(decodeSequence("host-not-allowed:net,served:kernel")).toEqual([
      { code: "host-not-allowed", by: "proxy" },
      { code: "served", by: "kernel" },
    ]);
  });
});
