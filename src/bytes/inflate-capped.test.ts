import { describe, expect, it } from "vitest";
import { inflateCapped } from "./inflate-capped";

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("deflate-raw")));
  return new Uint8Array(await out.arrayBuffer());
}

describe("inflating material from a link stops at the cap while it inflates", () => {
  it("inflates what fits under the cap, byte for byte", async () => {
    const text = new TextEncoder().encode("hosts:\n  - host: api.github.com\n".repeat(100));
    const result = await inflateCapped(await deflate(text), "deflate-raw", text.byteLength);
    expect(result).toEqual({ ok: true, bytes: text });
  });

  it("64 MiB of zeros (a 64 KiB link) is too-large, and most of the input is never fed in", async () => {
    const bomb = await deflate(new Uint8Array(64 * 1024 * 1024));
    const result = await inflateCapped(bomb, "deflate-raw", 64 * 1024);
    expect(result.ok).toBe(false);
    if (result.ok || result.problem !== "too-large") throw new Error("expected too-large");
    // Stopped while inflating: a fraction of the compressed bytes was read, not all of them.
    expect(result.consumed).toBeLessThan(bomb.byteLength / 4);
  });

  it("bytes that are not deflate are corrupt, not a crash", async () => {
    const result = await inflateCapped(new Uint8Array([0xff, 0xfe, 0xfd, 0x00, 0x01]), "deflate-raw", 1024);
    expect(result).toMatchObject({ ok: false, problem: "corrupt" });
  });

  it("a stream cut short is corrupt", async () => {
    const whole = await deflate(new TextEncoder().encode(Array.from({ length: 3000 }, (_, i) => i * 7919).join(",")));
    const result = await inflateCapped(whole.subarray(0, Math.floor(whole.byteLength / 2)), "deflate-raw", 1024 * 1024);
    expect(result).toMatchObject({ ok: false, problem: "corrupt" });
  });
});
