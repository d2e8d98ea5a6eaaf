import { describe, expect, it } from "vitest";
import { readCapped } from "./index";

function streamOf(chunks: Uint8Array[], fail?: Error): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else if (fail) controller.error(fail);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}

describe("readCapped reads a body whole, never more than the cap", () => {
  it("a body within the cap arrives whole, and onChunk hears the running total", async () => {
    const totals: number[] = [];
    const { body } = streamOf([new Uint8Array([1, 2]), new Uint8Array([3])]);
    expect(await readCapped(body, 3, (total) => totals.push(total))).toEqual({ ok: true, bytes: new Uint8Array([1, 2, 3]) });
    expect(totals).toEqual([2, 3]);
  });

  it("a body past the cap is too-large and the stream is cancelled", async () => {
    const stream = streamOf([new Uint8Array(3), new Uint8Array(3), new Uint8Array(3)]);
    expect(await readCapped(stream.body, 5)).toEqual({ ok: false, problem: "too-large" });
    expect(stream.cancelled()).toBe(true);
  });

  it("a stream that fails is failed, with its error", async () => {
    const broken = new Error("connection reset");
    const { body } = streamOf([new Uint8Array(1)], broken);
    expect(await readCapped(body, 10)).toEqual({ ok: false, problem: "failed", error: broken });
  });

  it("no body is an empty body", async () => {
    expect(await readCapped(null, 0)).toEqual({ ok: true, bytes: new Uint8Array(0) });
  });
});
