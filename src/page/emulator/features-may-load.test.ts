import { describe, expect, it } from "vitest";
import { featuresMayLoad } from "./features-may-load";

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
};

/** A promise the test settles. */
function later() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

describe("when the page's features may load", () => {
  it("waits for a restored guest to be ready (its fresh prompt, then its network), not for its restore", async () => {
    const ready = later();
    const may = featuresMayLoad(ready.promise, later().promise);
    expect(await settled(may)).toBe(false);
    ready.resolve();
    expect(await settled(may)).toBe(true);
  });

  it("does not wait for a cold boot: its start is enough", async () => {
    const booting = later();
    const may = featuresMayLoad(later().promise, booting.promise);
    expect(await settled(may)).toBe(false);
    booting.resolve();
    expect(await settled(may)).toBe(true);
  });

  it("lets the features load when the guest failed", async () => {
    const ready = later();
    const may = featuresMayLoad(ready.promise, later().promise);
    ready.reject(new Error("this browser cannot run the guest"));
    expect(await settled(may)).toBe(true);
  });

  it("resolves at once when the guest was already up", async () => {
    expect(await settled(featuresMayLoad(Promise.resolve(), later().promise))).toBe(true);
  });
});
