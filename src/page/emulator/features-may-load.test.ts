import { describe, expect, it } from "vitest";
import { createEventLog, type EventLog } from "../../log";
import { COLD_BOOT_START, featuresMayLoad } from "./features-may-load";

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
};

/** A guest's readiness, settled by the test. */
function readiness() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  ready.catch(() => undefined);
  return { ready, resolve, reject };
}

const progress = (log: EventLog, phase: "start" | "snapshot-restore" | "fresh" | "ready" | "error", message = "") =>
  log.append({ kind: "boot.progress", phase, message });

describe("when the page's features may load", () => {
  it("waits for a restored guest to be ready (its fresh prompt, then its network), not for its restore", async () => {
    const log = createEventLog();
    const guest = readiness();
    const may = featuresMayLoad(log, guest.ready);
    progress(log, "start", "restoring the shipped guest state");
    progress(log, "snapshot-restore", "restored");
    progress(log, "fresh", "the restored guest took this page's clock and a fresh random seed");
    expect(await settled(may)).toBe(false);
    guest.resolve();
    expect(await settled(may)).toBe(true);
  });

  it("does not wait for a cold boot: the guest's files being in is enough", async () => {
    const log = createEventLog();
    const may = featuresMayLoad(log, readiness().ready);
    progress(log, "start", COLD_BOOT_START);
    expect(await settled(may)).toBe(true);
  });

  it("lets the features load when the guest failed, said on the log or by its readiness", async () => {
    const said = createEventLog();
    const may = featuresMayLoad(said, readiness().ready);
    progress(said, "error", "this browser cannot run the guest");
    expect(await settled(may)).toBe(true);
    const guest = readiness();
    const rejected = featuresMayLoad(createEventLog(), guest.ready);
    guest.reject(new Error("the guest did not start"));
    expect(await settled(rejected)).toBe(true);
  });

  it("resolves at once when the guest was already up", async () => {
    const log = createEventLog();
    progress(log, "start", "restoring a saved guest state");
    progress(log, "fresh", "fresh");
    expect(await settled(featuresMayLoad(log, Promise.resolve()))).toBe(true);
  });
});
