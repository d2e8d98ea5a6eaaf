import { describe, expect, it } from "vitest";
import { deferred } from "./deferred";
import { createSerialQueue } from "./serial-queue";

describe("a serial queue", () => {
  it("starts a task only once the one queued before it has settled", async () => {
    const queue = createSerialQueue();
    const first = deferred<string>();
    const order: string[] = [];
    const a = queue.run(async () => {
      order.push("a starts");
      const v = await first.promise;
      order.push("a ends");
      return v;
    });
    const b = queue.run(() => {
      order.push("b runs");
      return 2;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual(["a starts"]);
    expect(queue.pending).toBe(2);
    first.resolve("one");
    await expect(a).resolves.toBe("one");
    await expect(b).resolves.toBe(2);
    expect(order).toEqual(["a starts", "a ends", "b runs"]);
    expect(queue.pending).toBe(0);
  });

  it("gives a failed task's error to its caller alone: the next task still runs", async () => {
    const queue = createSerialQueue();
    const failed = queue.run(() => Promise.reject(new Error("this one failed")));
    const next = queue.run(() => "still runs");
    await expect(failed).rejects.toThrow("this one failed");
    await expect(next).resolves.toBe("still runs");
  });

  it("settles once every task queued so far has settled, failed ones included", async () => {
    const queue = createSerialQueue();
    const gate = deferred();
    let done = false;
    void queue.run(() => gate.promise).then(() => (done = true));
    void queue.run(() => Promise.reject(new Error("no"))).catch(() => undefined);
    const settled = queue.settled();
    gate.resolve();
    await settled;
    expect(done).toBe(true);
    expect(queue.pending).toBe(0);
  });
});
