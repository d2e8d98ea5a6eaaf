import { describe, expect, it } from "vitest";
import { freshRequest } from "./fresh-guest";

describe("the fresh-machine request a restored guest reads", () => {
  it("carries the page's clock as seconds and nanoseconds, then the seed in hex", () => {
    const text = freshRequest(1_764_633_600_123.5, Uint8Array.from([0x00, 0x0f, 0xa5, 0xff]));
    expect(text).toBe("1764633600 123500000\n000fa5ff\n");
  });

  it("never writes a nanosecond count of a whole second or more", () => {
    const [, nanos] = (freshRequest(1_999.9999999, new Uint8Array(16)).split("\n")[0] ?? "").split(" ");
    expect(Number(nanos)).toBeLessThan(1e9);
  });
});
