import { describe, expect, it } from "vitest";
import { proposedPrefixes, readPageLink } from "../../link";
import { buildShareUrl, fetchPinnedPolicy, packPolicy, policyReference, readShareState, type ShareState } from "./link";

// A share link carries the harness, the policy (inline when small, else by hash +
// URL), the scenarios and the sender's verdict sequence; bad parts are dropped with a reason.
const base: ShareState = { harness: null, policy: null, policyRef: null, scenarios: [], expect: null, allowPrefixes: [] };
const params = (url: string) => new URL(url).searchParams;
/** The page's link for a query (the share state reads it from there). */
const linkOf = (query: ConstructorParameters<typeof URLSearchParams>[0]) =>
  readPageLink(`https://tab.example/?${new URLSearchParams(query)}`);

describe("share links", () => {
  it("carry a small policy inline and read it back byte for byte", async () => {
    const policy = JSON.stringify({ hosts: [{ host: "api.github.com" }] });
    const url = await buildShareUrl("https://tab.example/app/?x=1#frag", { ...base, policy, scenarios: ["served", "agent"] });
    expect(url.startsWith("https://tab.example/app/?")).toBe(true);
    const { state, problems } = await readShareState(readPageLink(url));
    expect(problems).toEqual([]);
    expect(state).toMatchObject({ policy, policyRef: null, scenarios: ["served", "agent"] });
  });

  it("carry a published policy by its pinned reference instead of inline", async () => {
    const policy = JSON.stringify({ hosts: Array.from({ length: 400 }, (_, i) => ({ host: `h${i}-${Math.sin(i)}.example` })) });
    expect((await packPolicy(policy)).length).toBeGreaterThan(1500);
    const ref = await policyReference("https://pub.example/policy.json", policy);
    expect(ref).toMatch(/^https:\/\/pub\.example\/policy\.json#sha256=[0-9a-f]{64}$/);
    const url = await buildShareUrl("https://tab.example/", { ...base, policy, policyRef: ref });
    expect(params(url).has("policy")).toBe(false);
    const { state } = await readShareState(readPageLink(url));
    expect(state.policyRef).toBe(ref);
  });

  it.each([
    ["not https", "http://pub.example/p.json#sha256=" + "a".repeat(64)],
    ["no pin", "https://pub.example/p.json"],
    ["a short pin", "https://pub.example/p.json#sha256=abc"],
  ])("drop a policy-ref that is %s, with a reason", async (_, ref) => {
    const { state, problems } = await readShareState(linkOf({ "policy-ref": ref }));
    expect(state.policyRef).toBeNull();
    expect(problems).toEqual([expect.stringContaining("policy-ref")]);
  });

  it("drop a policy that does not decode, and malformed scenario ids, with reasons", async () => {
    const { state, problems } = await readShareState(linkOf({ policy: "!!!", scenarios: "served,<script>" }));
    expect(state.policy).toBeNull();
    expect(state.scenarios).toEqual(["served"]);
    expect(problems).toHaveLength(2);
  });
});

describe("a share link carries the sender's extra org allowlist prefixes, as a proposal", () => {
  const ACME = "https://raw.githubusercontent.com/acme-labs/agent-harnesses/";
  const GH = "https://github.com/acme-labs/agent-harnesses/";

  it("round-trips each prefix as one allow-prefix parameter", async () => {
    const url = await buildShareUrl("https://tab.example/", { ...base, allowPrefixes: [ACME, GH] });
    expect(params(url).getAll("allow-prefix")).toEqual([ACME, GH]);
    const { state, problems } = await readShareState(readPageLink(url));
    expect(problems).toEqual([]);
    expect(state.allowPrefixes).toEqual([ACME, GH]);
  });

  it("reads repeats once, skips empty ones, and keeps at most 8 with a reason", async () => {
    expect(
      proposedPrefixes(
        linkOf([
          ["allow-prefix", ACME],
          ["allow-prefix", " "],
          ["allow-prefix", ACME],
        ]).allowPrefixes,
      ),
    ).toEqual([ACME]);
    const many = linkOf(Array.from({ length: 9 }, (_, i) => ["allow-prefix", `https://h${i}.example/`]));
    const { state, problems } = await readShareState(many);
    expect(state.allowPrefixes).toHaveLength(8);
    expect(problems).toEqual([expect.stringContaining("more than 8")]);
  });
});

describe("a policy by reference is applied only when its bytes hash to the pin (fail closed)", () => {
  const text = '{"hosts":[]}';
  const answer =
    (body: string, status = 200) =>
    async () =>
      new Response(body, { status });

  it("accepts the exact bytes", async () => {
    const ref = await policyReference("https://pub.example/p.json", text);
    expect(await fetchPinnedPolicy(ref, answer(text))).toEqual({ ok: true, text });
  });

  it.each([
    ["other bytes", answer(`${text}\n`), "hash-mismatch"],
    ["an error status", answer("", 404), "bad-status"],
    [
      "a network failure",
      async () => {
        throw new TypeError("Failed to fetch");
      },
      "fetch-failed",
    ],
  ])("refuses %s", async (_, fetchFn, code) => {
    const ref = await policyReference("https://pub.example/p.json", text);
    expect(await fetchPinnedPolicy(ref, fetchFn)).toMatchObject({ ok: false, verdict: { code } });
  });
});

describe("a share link's policy is capped while it inflates", () => {
  it("a policy that inflates past the cap is dropped with its reason, the default policy stays", async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    const packed = new Uint8Array(
      await new Response(new Blob([zeros]).stream().pipeThrough(new CompressionStream("deflate-raw"))).arrayBuffer(),
    );
    const policy = btoa(String.fromCharCode(...packed))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const { state, problems } = await readShareState(linkOf({ policy }));
    expect(state.policy).toBeNull();
    expect(problems).toEqual([expect.stringMatching(/policy-too-large: the policy inflates past 65536 bytes.*the default policy stays/)]);
  });
});
