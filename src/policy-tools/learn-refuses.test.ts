import { describe, expect, it } from "vitest";
import { Policy } from "../policy";
import { describeLineErrors, learnPolicy, readLogLines, replayLog } from "./index";
import { decisionLine, jsonLines } from "./testing/decisions";

const read = (events: Parameters<typeof jsonLines>[0]) => {
  const result = readLogLines(jsonLines(events));
  if (!result.ok) throw new Error(describeLineErrors(result.errors));
  return result.lines;
};
/** A request report mode served though the allowlist would refuse it: what a draft learns from. */
const reported = (seq: number, target: string, connect = false) =>
  decisionLine(seq, {
    target,
    ...(connect ? { mode: "connect" as const, method: "CONNECT" } : {}),
    wouldRefuse: "host-not-allowed",
    wouldRefuseReason: "not on the allowlist",
  });

describe("learn never drafts a wildcard, an IP or a private name from what a log claims", () => {
  it.each([
    ["a CONNECT to *.co.uk (report mode)", reported(1, "*.co.uk:443", true), "contains a wildcard"],
    ["the same CONNECT as Chromium's URL parser spells it, %2A.co.uk", reported(1, "%2A.co.uk:443", true), "contains a wildcard"],
    ["a lowercase %2a", reported(1, "https://%2a.example.com/x"), "contains a wildcard"],
    ["a wildcard inside a label, a*b.example.com", reported(1, "https://a*b.example.com/x"), "contains a wildcard"],
    ["a wildcard over a top-level domain, *.com", reported(1, "https://*.com/"), "contains a wildcard"],
    ["a bare *", reported(1, "*:443", true), "contains a wildcard"],
    ["a percent-encoded name", reported(1, "https://ex%61mple.com/"), "percent-encoded"],
    ["an IPv4 address", reported(1, "https://93.184.216.34/x"), "IP address"],
    ["an IPv4 address in another spelling", reported(1, "https://0x7f.1/x"), "IP address"],
    ["an IPv6 address", reported(1, "[::1]:443", true), "IP address"],
    ["localhost", reported(1, "https://localhost/admin"), "localhost is a loopback name"],
    ["localhost with a trailing dot", reported(1, "https://localhost./admin"), "localhost is a loopback name"],
    ["a name under .localdomain", reported(1, "https://localhost.localdomain/"), ".localdomain"],
    ["a name under .home", reported(1, "https://nas.home/"), ".home"],
    ["a name under .svc", reported(1, "https://api.default.svc/"), ".svc"],
    ["a reverse-DNS name", reported(1, "https://1.0.0.127.in-addr.arpa/"), ".in-addr.arpa"],
    ["a name that embeds an IP with dashes", reported(1, "https://127-0-0-1.nip.io/"), "spells the"],
    ["a name that embeds an IP with dots", reported(1, "https://10.0.0.1.sslip.io/"), "spells the"],
    ["a single-label name", reported(1, "https://buildbox/"), "single-label"],
  ])("%s is not learned, with a named reason, and nothing crashes", (_name, event, reason) => {
    const learned = learnPolicy(read([event, reported(2, "https://api.example.com/ok")]));
    expect(learned.policy.hosts.map((r) => r.host)).toEqual(["api.example.com"]);
    expect(learned.skipped).toEqual([{ line: 1, target: event.target, reason: expect.stringContaining(reason) }]);
  });

  it("the page and the CLI draft the same policy for the same log, whichever way the engine spelled the wildcard", () => {
    // Node's URL parser keeps `*` in a host; Chromium's writes `%2A`: the page's log and a CLI's log of one session differ so.
    const cli = learnPolicy(read([reported(1, "*.co.uk:443", true), reported(2, "https://a.example.com/x")]));
    const page = learnPolicy(read([reported(1, "%2A.co.uk:443", true), reported(2, "https://a.example.com/x")]));
    expect(page.policy).toEqual(cli.policy);
    expect(page.skipped.map((s) => s.reason)).toEqual(cli.skipped.map((s) => s.reason.replace('"*.co.uk"', '"%2A.co.uk"')));
  });
});

// 400,000 lines take seconds when the work is linear and hours when it is not (40,000 paths
// took 42 s quadratic): the generous time limit only keeps a loaded machine from failing them.
const LARGE = 240_000;

describe("learn and replay are linear in their input", () => {
  it(
    "learns 400,000 paths on one host into one rule of 400,000 prefixes, and replays the log under it unchanged",
    () => {
      const n = 400_000;
      const lines = Array.from({ length: n }, (_, i) => ({
        line: i + 1,
        event: decisionLine(i + 1, { target: `https://api.example.com/p${i}/item/${i}` }),
      }));
      const learned = learnPolicy(lines);
      expect(learned.learnedFrom).toBe(n);
      expect(learned.policy.hosts).toHaveLength(1);
      const paths = learned.policy.hosts[0]?.endpoints?.[0]?.paths ?? [];
      expect(paths).toHaveLength(n);
      expect(paths).toContain("/p399999/item/");
      const replay = replayLog(learned.policy, lines);
      expect(replay.summary).toMatchObject({ requests: n, changed: false, counts: { unchanged: n } });
    },
    LARGE,
  );

  it(
    "learns 400,000 lines over 100,000 hosts, and replays them under the draft unchanged",
    () => {
      const n = 400_000;
      const lines = Array.from({ length: n }, (_, i) => ({
        line: i + 1,
        event: decisionLine(i + 1, { target: `https://h${i % 100_000}.example.com/a/${i % 7}` }),
      }));
      const learned = learnPolicy(lines, { depth: 1 });
      expect(learned.policy.hosts).toHaveLength(100_000);
      expect(learned.policy.hosts.find((r) => r.host === "h99999.example.com")?.endpoints).toEqual([{ methods: ["GET"], paths: ["/a/"] }]);
      const replay = replayLog(Policy.parse(learned.policy), lines);
      expect(replay.summary).toMatchObject({ requests: n, changed: false });
    },
    LARGE,
  );

  it(
    "reads a log of 400,000 lines, skipping the kinds a replay does not need",
    () => {
      const frame = `${JSON.stringify({ kind: "wire.frame", seq: 0, time: 0, dir: "in", proto: "tcp", summary: "SYN", bytes: 60 })}\n`;
      const decision = jsonLines([decisionLine(1, { target: "https://api.example.com/x" })]);
      const text = Array.from({ length: 200_000 }, () => frame + decision).join("");
      const read = readLogLines(text);
      expect(read.ok && read.lines.length).toBe(200_000);
      expect(read.ok && read.skipped.lines).toBe(200_000);
    },
    LARGE,
  );
});
