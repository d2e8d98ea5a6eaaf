import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseGuestLine } from "../console";
import {
  createEventLog,
  EVENT_KINDS,
  type LogEvent,
  logJsonLines,
  type NewEvent,
  readLogChunks,
  readLogText,
  SEQUENCE_KINDS,
  scenarioWindows,
  verdictSequence,
} from "../log";
import { arbitraryEvent, EVENT_ARBITRARIES } from "../log/testing/arbitrary-event";
import { DEFAULT_POLICY, Policy } from "../policy";
import { describeLineErrors, learnPolicy, readLogLineChunks, readLogLines, replayLog } from "./index";

// Round trip by construction: whatever the log writes, every reader reads back. Events are
// generated from the log's own schema (every kind, nulls, empty and long lists, strings the
// log cuts), appended to a real log (which bounds them, as the page's does) and written as
// `GET /v0/log` and the page's Download log write them; then read by the replay and learn
// reader (`policy replay|learn`, the Replay panel), and by the share link's replay (the verdict
// sequence and scenario windows).

/** The log as the page's Download log and `GET /v0/log` write it. */
function written(events: readonly NewEvent[]): { text: string; held: readonly LogEvent[] } {
  const log = createEventLog({ clock: () => 1_700_000_000_000 });
  for (const event of events) log.append(event);
  return { text: [...logJsonLines(log)].join(""), held: log.events() };
}

/** A text cut into chunks at arbitrary places, as a file's stream delivers it. */
async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

const REPORT = Policy.parse({ ...DEFAULT_POLICY, mode: "report" });

/** Every llrun ruleset line the guest can print: each list `*`, empty, or items (guest/README.md). */
const portList = fc.oneof(
  fc.constant("*"),
  fc.constant(""),
  fc.array(fc.integer({ min: 1, max: 65535 }), { minLength: 1, maxLength: 4 }).map((p) => p.join(",")),
);
const pathList = fc.oneof(
  fc.constant("*"),
  fc.constant(""),
  fc.array(fc.constantFrom("/", "/tmp", "/usr/lib", "/a%2Cb", "/%20x"), { minLength: 1, maxLength: 3 }).map((p) => p.join(",")),
);
const llrunLine = fc
  .record({
    abi: fc.integer({ min: 0, max: 9 }),
    ro: pathList,
    rw: pathList,
    connect: portList,
    bind: portList,
    scope: fc.constantFrom("", "abstract-unix", "signal", "abstract-unix,signal"),
    dropped: fc.constantFrom("", "net.connect_tcp,net.bind_tcp", "fs.refer"),
  })
  .map(
    (f) =>
      `llrun: ruleset abi=${f.abi} fs_ro=${f.ro} fs_rw=${f.rw} connect=${f.connect} bind=${f.bind} scope=${f.scope} dropped=${f.dropped}`,
  );

describe("every event the log writes, every reader reads back", () => {
  it("each kind's generator makes events the log's schema accepts (every kind is generated)", () => {
    expect([...EVENT_ARBITRARIES.keys()].sort()).toEqual([...EVENT_KINDS].sort());
    for (const [kind, arbitrary] of EVENT_ARBITRARIES) for (const event of fc.sample(arbitrary, 20)) expect(event.kind, kind).toBe(kind);
  });

  it("a log of any events is read back whole by the full reader, and the replay, learn and share-link readers read it with no error", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbitraryEvent, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 500 }),
        async (events, size) => {
          const { text, held } = written(events);
          // Every kind, through the one schema: what the log held is what comes back.
          const all = readLogText(text, { needs: EVENT_KINDS });
          expect(describeLineErrors(all.errors)).toBe("");
          expect(all.lines.map((l) => l.event)).toEqual(held);
          expect(all.skipped.lines).toBe(0);

          // policy replay / the Replay panel (pasted, and from a stream cut anywhere).
          const read = readLogLines(text);
          if (!read.ok) throw new Error(describeLineErrors(read.errors));
          expect(await readLogLineChunks(chunked(text, size))).toEqual(read);
          const decisions = held.filter((e) => e.kind === "proxy.decision");
          expect(read.lines.map((l) => l.event)).toEqual(decisions);
          expect(read.skipped.lines).toBe(held.length - decisions.length);
          const replay = replayLog(REPORT, read.lines);
          expect(replay.summary.requests + replay.summary.skipped).toBe(decisions.length);

          // policy learn / Draft a policy: never a crash, and the draft is a valid policy.
          const learned = learnPolicy(read.lines);
          expect(Policy.safeParse(learned.policy).success).toBe(true);

          // The share link's replay: the verdict sequence and the scenario windows it compares.
          const sequence = await readLogChunks(chunked(text, size), { needs: SEQUENCE_KINDS });
          expect(sequence.errors).toEqual([]);
          const events2 = sequence.lines.map((l) => l.event);
          expect(verdictSequence(events2)).toEqual(verdictSequence(held));
          expect(scenarioWindows(events2)).toEqual(scenarioWindows(held));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("every llrun ruleset line the guest prints is logged as an event every reader reads back (`*` stays `*`)", () => {
    fc.assert(
      fc.property(fc.array(llrunLine, { minLength: 1, maxLength: 5 }), (lines) => {
        const events = lines.map((line) => parseGuestLine(line));
        for (const event of events) expect(event?.kind).toBe("kernel.ruleset");
        const { text, held } = written(events as NewEvent[]);
        expect(text).not.toContain("null");
        const all = readLogText(text, { needs: EVENT_KINDS });
        expect(all.errors).toEqual([]);
        expect(all.lines.map((l) => l.event)).toEqual(held);
        expect(readLogLines(text)).toMatchObject({ ok: true, lines: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("`bind=*` is written as the item `*`, and a log written before that, with null, still reads (as `*`)", () => {
    const event = parseGuestLine("llrun: ruleset abi=6 fs_ro=/ fs_rw=/tmp connect=3128 bind=* scope= dropped=");
    expect(event).toMatchObject({ connect: [3128], bind: ["*"], fsRo: ["/"], fsRw: ["/tmp"] });
    const old = JSON.stringify({ ...event, seq: 74, time: 1, bind: [null] });
    const read = readLogText(`${old}\n`, { needs: ["kernel.ruleset"] });
    expect(read.errors).toEqual([]);
    expect(read.lines[0]?.event).toMatchObject({ kind: "kernel.ruleset", bind: ["*"] });
    expect(readLogLines(`${old}\n`)).toMatchObject({ ok: true, lines: [], skipped: { lines: 1 } });
  });
});
