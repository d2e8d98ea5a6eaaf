import { describe, expect, it } from "vitest";
import { DEFAULT_RELAY_LIMITS, FRAME_OVERHEAD_BYTES, FRAMES_GRANTED, FRAMES_QUEUED_LIMIT, LARGEST_EXPECTED_FRAME_BYTES } from "./limits";

describe("the relay's byte budgets for what clients send", () => {
  const queuedFullRecords = FRAMES_QUEUED_LIMIT * (LARGEST_EXPECTED_FRAME_BYTES + FRAME_OVERHEAD_BYTES);

  it("hold four CONTINUE grants of full TLS records on one stream (CONTINUEs crossing a fast client's frames), so a client keeping to its grants is not throttled", () => {
    expect(FRAMES_QUEUED_LIMIT).toBeGreaterThanOrEqual(4 * FRAMES_GRANTED);
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerStream).toBeGreaterThanOrEqual(queuedFullRecords);
  });

  it("hold two such streams on one WebSocket, and stay below what the whole relay holds", () => {
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerWebsocket).toBeGreaterThanOrEqual(2 * queuedFullRecords);
    expect(DEFAULT_RELAY_LIMITS.inboundBytesPerWebsocket).toBeLessThan(DEFAULT_RELAY_LIMITS.inboundBytesTotal);
  });
});
