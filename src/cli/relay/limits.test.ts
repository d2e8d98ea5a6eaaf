import { describe, expect, it } from "vitest";
import { DEFAULT_RELAY_LIMITS, FRAME_OVERHEAD_BYTES, FRAMES_QUEUED_LIMIT, LARGEST_EXPECTED_FRAME_BYTES } from "./limits";

describe("the relay's byte budgets for what clients send", () => {
  const twoGrantsOfFullRecords = FRAMES_QUEUED_LIMIT * (LARGEST_EXPECTED_FRAME_BYTES + FRAME_OVERHEAD_BYTES);

  it("hold two CONTINUE grants of full TLS records on one stream, so a client keeping to its grant is not throttled", () => {
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerStream).toBeGreaterThanOrEqual(twoGrantsOfFullRecords);
  });

  it("hold two such streams on one WebSocket, and stay below what the whole relay holds", () => {
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerWebsocket).toBeGreaterThanOrEqual(2 * twoGrantsOfFullRecords);
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerWebsocket).toBeLessThan(DEFAULT_RELAY_LIMITS.inboundBytesTotal);
  });
});
