import { afterEach, describe, expect, it, vi } from "vitest";
import { createCas, createMemoryStore } from "../../cas";
import { createEventLog } from "../../log";
import type { OrgAllowlist } from "../../resolver";
import { createPageResolver } from "./resolver";

/**
 * A resolver whose every run waits for `release()` (its org allowlist is not read yet), on a
 * bundle that answers 404: each resolve then fails, which is all these tests need of it.
 */
function heldResolver() {
  let release!: () => void;
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  vi.stubGlobal("fetch", async () => new Response("not here", { status: 404 }));
  const orgAllowlist = { ready, entries: () => [], defaults: () => [] } as unknown as OrgAllowlist;
  const resolver = createPageResolver({
    cas: createCas({ store: createMemoryStore() }),
    log: createEventLog(),
    bundleRoot: "http://127.0.0.1:4173/samples/",
    recordings: true,
    fetch: async () => new Response("not here", { status: 404 }),
    orgAllowlist,
  });
  return { resolver, release };
}

const settledWithin = async (promise: Promise<void>, ms: number): Promise<boolean> => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, ms));
  return done;
};

describe("the page resolver's idle wait", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("settles at once when nothing is queued", async () => {
    const { resolver } = heldResolver();
    expect(await settledWithin(resolver.whenIdle(), 20)).toBe(true);
  });

  it("waits for a resolve that is running, and settles once it ended", async () => {
    const { resolver, release } = heldResolver();
    let ended = false;
    const resolving = resolver.resolve("sample").finally(() => {
      ended = true;
    });
    resolving.catch(() => undefined);
    const idle = resolver.whenIdle();
    expect(await settledWithin(idle, 30)).toBe(false);
    expect(ended).toBe(false);
    release();
    await idle;
    expect(ended).toBe(true);
  });

  it("also waits for a resolve that a callback of the last one queued just as it ended", async () => {
    const { resolver, release } = heldResolver();
    let second: Promise<unknown> | null = null;
    let secondDone = false;
    const first = resolver.resolve("sample").finally(() => {
      second = resolver
        .resolve("/.fullsend/harness/other.yaml")
        .finally(() => {
          secondDone = true;
        })
        .catch(() => undefined);
    });
    first.catch(() => undefined);
    const idle = resolver.whenIdle();
    release();
    await idle;
    expect(second).not.toBeNull();
    expect(secondDone).toBe(true);
  });
});
