import { describe, expect, it } from "vitest";
import { createEventLog, type EventLog, type LogEvent, logJsonLines, logJsonLinesStream, parseJsonLines } from "./index";

// `GET /v0/log` of a flooded log returned 0 bytes, because the whole log
// was built as one string. The export is now produced line by line, as the reader pulls.

const note = (message: string) => ({ kind: "note", level: "info", source: "test", message }) as const;

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return chunks;
}

describe("the log streams as JSON lines, chunk by chunk, as the reader pulls", () => {
  it("a flooded log streams every event it holds, in chunks of about chunkBytes, after a line counting the dropped ones", async () => {
    const log = createEventLog({ clock: () => 7, maxBytes: 256 * 1024 });
    for (let i = 0; i < 5000; i++) log.append(note(`request ${i} ${"x".repeat(500)}`));
    const chunks = await readAll(logJsonLinesStream(log, { chunkBytes: 16 * 1024 }));
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(16 * 1024 + 1024); // at most one line over
    const text = new TextDecoder().decode(Buffer.concat(chunks));
    const parsed = parseJsonLines(text);
    expect(parsed.errors).toEqual([]);
    const [first, ...rest] = parsed.events;
    expect(first).toMatchObject({ kind: "log.dropped", dropped: log.dropped, seq: log.dropped - 1 });
    expect(log.dropped).toBeGreaterThan(0);
    expect(rest).toEqual(log.events());
  });

  it("a log that dropped nothing streams exactly its events, with no dropped line", () => {
    const log = createEventLog({ clock: () => 7 });
    log.append(note("a"));
    log.append(note("b"));
    const lines = [...logJsonLines(log)];
    expect(lines).toHaveLength(2);
    expect(parseJsonLines(lines.join("")).events).toEqual(log.events());
  });

  it("lines are built only as they are pulled: reading one chunk serialises one chunk's worth of events", async () => {
    let serialised = 0;
    const events = Array.from({ length: 1000 }, (_, i) => ({
      ...note("y".repeat(100)),
      seq: i,
      time: 0,
      toJSON() {
        serialised++;
        const { toJSON: _omit, ...plain } = this;
        return plain;
      },
    }));
    const fake = { events: () => events as unknown as LogEvent[], dropped: 0 } as unknown as EventLog;
    const reader = logJsonLinesStream(fake, { chunkBytes: 4096 }).getReader();
    await reader.read();
    expect(serialised).toBeGreaterThan(0);
    expect(serialised).toBeLessThan(50); // ~4096 / 170 bytes a line, never the 1000
    await reader.cancel();
  });

  it("events appended while the export streams do not change it: it is the log as it was when asked", async () => {
    const log = createEventLog({ clock: () => 7 });
    log.append(note("before"));
    const stream = logJsonLinesStream(log);
    log.append(note("after"));
    const text = new TextDecoder().decode(Buffer.concat(await readAll(stream)));
    expect(parseJsonLines(text).events.map((e) => (e.kind === "note" ? e.message : ""))).toEqual(["before"]);
  });
});
