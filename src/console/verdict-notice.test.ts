import { describe, expect, it } from "vitest";
import { createEventLog, type NewEvent } from "../log";
import { commandNotices, MAX_NOTICES_PER_COMMAND, noticeRows } from "./verdict-notice";

const decision = (fields: Partial<Extract<NewEvent, { kind: "proxy.decision" }>>): NewEvent => ({
  kind: "proxy.decision",
  id: "r1",
  mode: "connect",
  method: "CONNECT",
  target: "example.com:443",
  status: 403,
  bytes: 0,
  durationMs: 1,
  allowed: false,
  code: "host-not-allowed",
  reason: "example.com is not on the allowlist",
  by: "proxy",
  ...fields,
});

function eventsOf(...events: NewEvent[]) {
  const log = createEventLog();
  for (const e of events) log.append(e);
  return log.events();
}

describe("the notices a command's verdicts leave in the terminal", () => {
  it("a refused CONNECT is told with its code and reason", () => {
    expect(commandNotices(eventsOf(decision({})))).toEqual([
      {
        code: "host-not-allowed",
        text: "tab: proxy refused CONNECT example.com:443: host-not-allowed, example.com is not on the allowlist",
      },
    ]);
  });

  it("a served request says nothing; one whose body the upstream cut short says so", () => {
    const served = { allowed: true, code: "served", status: 200, reason: "allowed by api.github.com" } as const;
    const cut = { ...served, bodyCut: true, reason: "allowed (the upstream body failed: terminated)" } as const;
    const notices = commandNotices(eventsOf(decision(served), decision(cut)));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain("the upstream cut its body short: allowed (the upstream body failed: terminated)");
  });

  it("a TLS refusal and a report-mode finding are told; other events are not", () => {
    const events = eventsOf(
      {
        kind: "tls.verdict",
        session: "s1",
        target: "api.github.com",
        alert: null,
        allowed: false,
        code: "sni-mismatch",
        reason: "SNI differs",
        by: "proxy",
      },
      decision({ allowed: true, code: "served", wouldRefuse: "host-not-allowed", wouldRefuseReason: "not listed" }),
      { kind: "wire.connection", id: "c", phase: "open", remote: "10.0.2.15:1", port: 3128, bytesIn: 0, bytesOut: 0 },
    );
    expect(commandNotices(events).map((n) => n.code)).toEqual(["sni-mismatch", "host-not-allowed"]);
    expect(commandNotices(events)[1]?.text).toContain("report mode: proxy would refuse");
  });

  it("the kernel's refusal is told with the right it blocked, the path, the process and the domain", () => {
    const events = eventsOf({
      kind: "kernel.decision",
      allowed: false,
      code: "landlock-denied",
      by: "kernel",
      reason: "Landlock domain 1a2b does not allow fs.make_reg on /root",
      access: ["fs.make_reg"],
      target: "/root",
      path: "/root",
      program: "/usr/bin/busybox",
      pid: 77,
      domain: "1a2b",
      record: "",
    });
    expect(commandNotices(events)).toEqual([
      {
        code: "landlock-denied",
        text: "tab: kernel refused fs.make_reg on /root (/usr/bin/busybox pid 77): landlock-denied, Landlock domain 1a2b",
      },
    ]);
  });

  it("control characters a guest put in a target are shown escaped, never sent to the terminal", () => {
    const [notice] = commandNotices(eventsOf(decision({ target: "evil.example:443\x1b[2J\x07" })));
    expect(notice?.text).not.toMatch(/[\x00-\x1f]/);
    expect(notice?.text).toContain("\\u{1B}[2J\\u{7}");
  });

  it("many refusals in one command are cut to a few lines and a count of the rest", () => {
    const notices = commandNotices(eventsOf(...Array.from({ length: 7 }, (_, i) => decision({ id: `r${i}` }))));
    expect(notices).toHaveLength(MAX_NOTICES_PER_COMMAND);
    expect(notices.at(-1)?.text).toBe(`tab: ${7 - (MAX_NOTICES_PER_COMMAND - 1)} more verdicts for this command are in the Proxy panel`);
  });
});

describe("a notice cut to the terminal's width", () => {
  it("fits in rows one narrower than the terminal, and ends in an ellipsis when cut", () => {
    const rows = noticeRows("x".repeat(100), 21, 2);
    expect(rows).toEqual(["x".repeat(20), `${"x".repeat(19)}…`]);
    expect(noticeRows("short", 80)).toEqual(["short"]);
  });

  it("never splits a character outside the basic plane", () => {
    const rows = noticeRows("😀".repeat(35), 11, 3);
    expect(rows.every((row) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(row))).toBe(true);
    expect(rows.join("").replace("…", "")).toBe("😀".repeat(29));
  });
});
