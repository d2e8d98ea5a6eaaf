import { describe, expect, it } from "vitest";
import { judgeStep } from "./judge";
import { OUTPUT_JUDGED_MAX_CHARS } from "./output-pattern";
import type { ExpectItem, LessonStep } from "./schema";
import { bypassRefused, decision, dnsRefused, frame, pastebinRefused, tcpconnect, windowOf, writeRefused } from "./testing/windows";

const step = (...expect: ExpectItem[]): LessonStep => ({ title: "S", run: "true", expect });

describe("the expect judge", () => {
  // Each item against recorded windows: [item, window, met?]
  const TABLE: { name: string; item: ExpectItem; window: () => ReturnType<typeof pastebinRefused>; met: boolean; detail: RegExp }[] = [
    {
      name: "a verdict the proxy gave",
      item: { verdict: "host-not-allowed" },
      window: pastebinRefused,
      met: true,
      detail: /the proxy refused CONNECT pastebin.com:443: host-not-allowed/,
    },
    {
      name: "a verdict by the decider that gave it",
      item: { verdict: "host-not-allowed", by: "proxy" },
      window: pastebinRefused,
      met: true,
      detail: /by proxy/,
    },
    {
      name: "a verdict by another decider",
      item: { verdict: "host-not-allowed", by: "kernel" },
      window: pastebinRefused,
      met: false,
      detail: /expected a decision host-not-allowed by kernel; the log has host-not-allowed by proxy \(pastebin.com:443\)/,
    },
    {
      name: "a verdict whose target contains the text, in any case",
      item: { verdict: "host-not-allowed", target: "PASTEBIN" },
      window: pastebinRefused,
      met: true,
      detail: /pastebin/,
    },
    {
      name: "a verdict for another target",
      item: { verdict: "host-not-allowed", target: "example.org" },
      window: pastebinRefused,
      met: false,
      detail: /containing "example.org"/,
    },
    {
      name: "a verdict that did not happen",
      item: { verdict: "ip-literal" },
      window: pastebinRefused,
      met: false,
      detail: /the log has host-not-allowed by proxy/,
    },
    {
      name: "a verdict in a window with no decision",
      item: { verdict: "ip-literal" },
      window: dnsRefused,
      met: false,
      detail: /no decision was logged/,
    },
    { name: "exit nonzero on a failed curl", item: { exit: "nonzero" }, window: pastebinRefused, met: true, detail: /status 56/ },
    {
      name: "exit 0 on a failed curl",
      item: { exit: 0 },
      window: pastebinRefused,
      met: false,
      detail: /expected exit status 0; it exited with status 56/,
    },
    { name: "an exact exit status", item: { exit: 56 }, window: pastebinRefused, met: true, detail: /status 56/ },
    { name: "output matching a regex", item: { output: "response 40[0-9]" }, window: pastebinRefused, met: true, detail: /matches/ },
    {
      name: "output not matching",
      item: { output: "^200 OK" },
      window: pastebinRefused,
      met: false,
      detail: /the output was "curl: \(56\)/,
    },
    {
      name: "the kernel's EACCES",
      item: { kernel: "EACCES" },
      window: bypassRefused,
      met: true,
      detail: /tcpconnect to 93.184.216.34:443 got EACCES \(errno 13\) from the kernel/,
    },
    {
      name: "a kernel result that was another",
      item: { kernel: "ECONNREFUSED" },
      window: bypassRefused,
      met: false,
      detail: /expected the kernel to answer ECONNREFUSED; tcpconnect to 93.184.216.34:443 got EACCES/,
    },
    {
      name: "a kernel result where none was reported",
      item: { kernel: "EACCES" },
      window: pastebinRefused,
      met: false,
      detail: /no kernel result was reported/,
    },
    {
      name: "a DNS query on the wire",
      item: { dns: "example.com." },
      window: dnsRefused,
      met: true,
      detail: /DNS query for example.com \(A\) crossed the wire and was answered REFUSED/,
    },
    {
      name: "a DNS query for another name",
      item: { dns: "example.org" },
      window: dnsRefused,
      met: false,
      detail: /the wire saw example.com/,
    },
    { name: "a DNS query where none was sent", item: { dns: "example.com" }, window: bypassRefused, met: false, detail: /none crossed it/ },
    {
      name: "no wire frame under Landlock",
      item: { absent: "wire.frame" },
      window: bypassRefused,
      met: true,
      detail: /no wire.frame event/,
    },
    {
      name: "no wire frame when a SYN left",
      item: { absent: "wire.frame" },
      window: pastebinRefused,
      met: false,
      detail: /expected no wire.frame; the window has 1/,
    },
  ];
  for (const row of TABLE)
    it(`judges ${row.name} as ${row.met ? "met" : "unmet"}`, () => {
      const judged = judgeStep(step(row.item), row.window());
      expect(judged.items[0]?.met).toBe(row.met);
      expect(judged.items[0]?.detail).toMatch(row.detail);
      expect(judged.passed).toBe(row.met);
    });

  it("passes a step only when every item holds for the one command", () => {
    const s = step({ verdict: "host-not-allowed", by: "proxy", target: "pastebin.com" }, { exit: "nonzero" }, { output: "403" });
    const judged = judgeStep(s, pastebinRefused());
    expect(judged.passed).toBe(true);
    expect(judged.decisive).toEqual({
      kind: "proxy.decision",
      code: "host-not-allowed",
      by: "proxy",
      target: "pastebin.com:443",
      reason: "pastebin.com is not on the allowlist",
    });
    expect(judged.explanation).toMatch(/^The proxy refused CONNECT pastebin.com:443: host-not-allowed \(by proxy, HTTP 403\)/);
  });

  it("names what happened instead and every unmet item when a step fails", () => {
    const s = step({ kernel: "EACCES" }, { absent: "wire.frame" });
    const judged = judgeStep(s, pastebinRefused());
    expect(judged.passed).toBe(false);
    expect(judged.decisive).toMatchObject({ kind: "proxy.decision", code: "host-not-allowed", by: "proxy" });
    expect(judged.explanation).toMatch(
      /^What happened instead: the proxy refused CONNECT pastebin.com:443.*Not met: expected the kernel to answer EACCES.*; expected no wire.frame/,
    );
  });

  it("judges a filesystem refusal on the kernel's own decision, naming the right and the path", () => {
    const judged = judgeStep(step({ verdict: "landlock-denied", by: "kernel", target: "/root" }, { exit: "nonzero" }), writeRefused());
    expect(judged.passed).toBe(true);
    expect(judged.decisive).toMatchObject({ kind: "kernel.decision", code: "landlock-denied", by: "kernel", target: "/root" });
    expect(judged.explanation).toMatch(
      /^The kernel refused fs\.make_reg on \/root to \/usr\/bin\/busybox \(pid 77\): landlock-denied \(by kernel/,
    );
  });

  it("takes the guest's kernel result as decisive for a step that asks for the errno it printed", () => {
    const judged = judgeStep(step({ kernel: "EACCES" }, { absent: "wire.frame" }), bypassRefused());
    expect(judged.decisive).toMatchObject({ kind: "kernel.result", by: "kernel", target: "93.184.216.34:443" });
  });

  it("finds the decision among a busy shell's noise: a background loop's requests and the page's own endpoints", () => {
    const window = windowOf("curl -sS https://93.184.216.34/", 35, [
      decision({
        id: "bg1",
        mode: "absolute",
        method: "GET",
        target: "http://example.com/",
        status: 200,
        allowed: true,
        code: "served",
        reason: "allowed",
      }),
      decision({
        id: "own",
        mode: "own",
        method: "GET",
        target: "http://10.0.2.2:3128/v0/log",
        status: 200,
        allowed: true,
        code: "served",
        reason: "the page's own endpoint",
      }),
      frame("SYN"),
      decision({ id: "r2", target: "93.184.216.34:443", code: "ip-literal", reason: "IP literals are refused" }),
      decision({
        id: "bg2",
        mode: "absolute",
        method: "GET",
        target: "http://example.com/",
        status: 200,
        allowed: true,
        code: "served",
        reason: "allowed",
      }),
    ]);
    const judged = judgeStep(step({ verdict: "ip-literal", by: "proxy" }, { exit: "nonzero" }), window);
    expect(judged.passed).toBe(true);
    expect(judged.decisive).toMatchObject({ code: "ip-literal", target: "93.184.216.34:443" });
    // Failing, the refusal is what happened instead, not the allowed background requests or the page looking at itself.
    const wrong = judgeStep(step({ verdict: "host-not-allowed" }), window);
    expect(wrong.decisive).toMatchObject({ code: "ip-literal" });
  });

  it("does not pass an exit item for a command that has no end mark (the shell is still busy)", () => {
    const window = windowOf("sleep 100", null, []);
    const judged = judgeStep(step({ exit: 0 }), window);
    expect(judged.passed).toBe(false);
    expect(judged.items[0]?.detail).toMatch(/no end mark/);
    expect(judged.decisive).toBeNull();
    expect(judged.explanation).toMatch(/`sleep 100`: it has no end mark.*no decision was logged/);
  });

  it("says a Ctrl+C'd command was interrupted (status 130) and passes only an item that asks for 130", () => {
    const window = windowOf("tcpconnect -t 60 10.0.2.2 9", 130, [frame("SYN")], "^C");
    expect(window.interrupted).toBe(true);
    const judged = judgeStep(step({ exit: "nonzero" }, { kernel: "ETIMEDOUT" }), window);
    expect(judged.passed).toBe(false);
    expect(judged.items[0]).toMatchObject({
      met: false,
      detail: "expected a nonzero exit status; it was interrupted (Ctrl+C, status 130)",
    });
    expect(judged.explanation).toMatch(/^The command was interrupted \(Ctrl\+C, status 130\) before it finished\. What happened instead/);
    expect(judgeStep(step({ exit: 130 }), window).passed).toBe(true);
  });

  it("matches the kernel's success as ok", () => {
    const window = windowOf("llrun --connect 3128 -- tcpconnect 10.0.2.2 3128", 0, [tcpconnect("10.0.2.2:3128", "ok", 0)]);
    expect(judgeStep(step({ kernel: "ok" }, { exit: 0 }), window).passed).toBe(true);
  });

  it("reads verdicts from every event kind that carries one", () => {
    const window = windowOf("sgit push demo-notes", 1, [
      {
        kind: "tls.verdict",
        session: "t1",
        target: "example.com",
        alert: "unrecognized_name",
        allowed: false,
        code: "sni-mismatch",
        reason: "SNI differs",
        by: "proxy",
      },
      { kind: "wire.verdict", target: "1.1.1.1:443", allowed: false, code: "no-route", reason: "no route", by: "wire" },
      {
        kind: "kms.event",
        op: "push",
        vaultId: "demo-notes",
        command: "sgit push demo-notes",
        access: "read",
        allowed: false,
        code: "vault-op-not-granted",
        reason: "a read grant cannot push",
        by: "kms",
      },
      { kind: "cache.event", op: "corrupt", sha256: "ab", bytes: 3, message: "bytes hash to cd" },
      { kind: "wire.malformed", reason: "IPv4 fragment", bytes: 40, code: "fragment-refused" },
      {
        kind: "resolver.step",
        run: "r",
        field: "harness",
        ref: "h.yaml",
        refKind: "url",
        pin: "00",
        cache: "none",
        allowed: false,
        code: "hash-mismatch",
        reason: "pin differs",
        by: "resolver",
        bytes: 0,
        durationMs: 0,
      },
    ]);
    const codes: [ExpectItem, boolean][] = [
      [{ verdict: "sni-mismatch", by: "proxy" }, true],
      [{ verdict: "no-route", by: "wire" }, true],
      [{ verdict: "vault-op-not-granted", by: "kms", target: "demo-notes" }, true],
      [{ verdict: "cache-corrupt", by: "cas" }, true],
      [{ verdict: "fragment-refused", by: "wire" }, true],
      [{ verdict: "hash-mismatch", by: "resolver" }, true],
      [{ verdict: "served" }, false],
    ];
    for (const [item, met] of codes) expect(judgeStep(step(item), window).passed, JSON.stringify(item)).toBe(met);
  });

  it("ignores fields a host adds to the window", () => {
    const window = { ...pastebinRefused(), timedOut: false, by: "person" };
    expect(judgeStep(step({ verdict: "host-not-allowed" }), window).passed).toBe(true);
  });

  describe("output patterns run in a linear-time engine", () => {
    const printed = (output: string) => windowOf("printf", 0, [], output);

    it("a backtracking pattern (/^(a+)+X$/ against 40 letters) is judged, and answers right", () => {
      // JavaScript's RegExp would run for minutes here; RE2 answers at once. No time is asserted.
      const letters = "a".repeat(40);
      expect(judgeStep(step({ output: "^(a+)+X$" }), printed(letters)).passed).toBe(false);
      expect(judgeStep(step({ output: "^(a+)+X$" }), printed(`${letters}X`)).passed).toBe(true);
    });

    it("a pattern the engine cannot run fails its step with a named reason, not a crash", () => {
      // A lesson from parseLesson never carries one; a host handing the judge a raw step still gets a verdict.
      const judged = judgeStep(step({ output: "(a)\\1" }), printed("aa"));
      expect(judged.passed).toBe(false);
      expect(judged.items[0]?.detail).toMatch(/^output-pattern-unsupported: .* cannot be judged/);
      const long = judgeStep(step({ output: "a".repeat(1001) }), printed("a"));
      expect(long.items[0]?.detail).toMatch(/^output-pattern-too-large/);
    });

    it("the judge reads the output's last 64 Ki characters and says so", () => {
      const output = `START\n${"x".repeat(OUTPUT_JUDGED_MAX_CHARS)}\nEND`;
      expect(judgeStep(step({ output: "START" }), printed(output)).passed).toBe(false);
      const end = judgeStep(step({ output: "END$" }), printed(output));
      expect(end.passed).toBe(true);
      expect(end.items[0]?.detail).toMatch(/its last 65536 characters/);
    });

    it("an output item reached after judging's time limit is unmet, judge-timed-out", () => {
      // Each reading of the clock advances it 20 past a deadline of 10: the first item is
      // judged in time (reading 0), the second is reached at 20.
      let clock = 0;
      const now = () => {
        const reading = clock;
        clock += 20;
        return reading;
      };
      const judged = judgeStep(step({ output: "ok" }, { output: "o" }), printed("ok"), { deadline: 10, now });
      expect(judged.items[0]?.met).toBe(true);
      expect(judged.items[1]?.met).toBe(false);
      expect(judged.items[1]?.detail).toMatch(/^judge-timed-out/);
    });
  });
});
