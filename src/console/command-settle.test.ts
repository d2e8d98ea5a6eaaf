import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { connectionsClosed, connectionsOpenSince } from "./command-settle";

const conn = (id: string, phase: "open" | "close" | "reset") =>
  ({ kind: "wire.connection", id, phase, remote: "10.0.2.15:40000", port: 3128, bytesIn: 0, bytesOut: 0 }) as const;

describe("a command's connections", () => {
  it("connections opened since a point and not closed are the ones still open", () => {
    const log = createEventLog();
    log.append(conn("before", "open"));
    const from = log.nextSeq;
    log.append(conn("a", "open"));
    log.append(conn("b", "open"));
    log.append(conn("a", "close"));
    expect([...connectionsOpenSince(log.events(), from)]).toEqual(["b"]);
  });

  it("waiting for them ends when the last one closes or resets", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    log.append(conn("a", "open"));
    log.append(conn("b", "open"));
    const closed = connectionsClosed(log, from, 60_000);
    log.append(conn("a", "close"));
    log.append(conn("b", "reset"));
    expect(await closed).toBe(true);
  });

  it("with nothing open there is nothing to wait for", async () => {
    const log = createEventLog();
    expect(await connectionsClosed(log, log.nextSeq, 60_000)).toBe(true);
  });

  it("a connection that stays open does not hold the caller past the limit", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    log.append(conn("kept", "open"));
    expect(await connectionsClosed(log, from, 1)).toBe(false);
  });
});
