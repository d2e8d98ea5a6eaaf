import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../bytes";
import { createCas, createMemoryStore } from "../../../cas";
import { obtainPinnedLesson } from "./source";

const TEXT = "lesson: 1\ntitle: T\nsteps: []\n";
const BYTES = new TextEncoder().encode(TEXT);
const ORG = ["https://docs.example/lessons/"];

function serving(body: string) {
  const asked: string[] = [];
  const fetch = async (url: string) => {
    asked.push(url);
    return new Response(body, { status: 200 });
  };
  return { fetch, asked };
}

describe("a published lesson, obtained like a harness file", () => {
  it("a lesson whose bytes hash to its pin is fetched, verified and kept in the cache", async () => {
    const pin = await sha256Hex(BYTES);
    const cas = createCas({ store: createMemoryStore() });
    const net = serving(TEXT);
    const got = await obtainPinnedLesson(`https://docs.example/lessons/a.yaml#sha256=${pin}`, { cas, fetch: net.fetch, orgAllowlist: ORG });
    expect(got).toMatchObject({ ok: true, lesson: { text: TEXT, pin, source: "url" } });
    expect((await cas.get(pin)).status).toBe("hit");
  });

  it("a second load is answered from the cache without a fetch", async () => {
    const pin = await sha256Hex(BYTES);
    const cas = createCas({ store: createMemoryStore() });
    await cas.put(BYTES);
    const net = serving("something else");
    const got = await obtainPinnedLesson(`https://docs.example/lessons/a.yaml#sha256=${pin}`, { cas, fetch: net.fetch, orgAllowlist: ORG });
    expect(got.ok).toBe(true);
    expect(net.asked).toEqual([]);
  });

  it("a lesson whose bytes do not match its pin is refused lesson-pin-mismatch and not cached", async () => {
    const pin = "0".repeat(64);
    const cas = createCas({ store: createMemoryStore() });
    const got = await obtainPinnedLesson(`https://docs.example/lessons/a.yaml#sha256=${pin}`, {
      cas,
      fetch: serving(TEXT).fetch,
      orgAllowlist: ORG,
    });
    expect(got).toMatchObject({ ok: false, code: "lesson-pin-mismatch" });
    expect((await cas.list()).length).toBe(0);
  });

  it("a lesson URL under no org allowlist prefix is refused before anything is fetched", async () => {
    const net = serving(TEXT);
    const got = await obtainPinnedLesson(`https://elsewhere.example/a.yaml#sha256=${"0".repeat(64)}`, {
      cas: createCas({ store: createMemoryStore() }),
      fetch: net.fetch,
      orgAllowlist: ORG,
    });
    expect(got).toMatchObject({ ok: false, code: "not-allowlisted" });
    expect(net.asked).toEqual([]);
  });

  it("a lesson URL without its pin is refused hash-missing", async () => {
    const got = await obtainPinnedLesson("https://docs.example/lessons/a.yaml", {
      cas: createCas({ store: createMemoryStore() }),
      fetch: serving(TEXT).fetch,
      orgAllowlist: ORG,
    });
    expect(got).toMatchObject({ ok: false, code: "hash-missing" });
  });
});
