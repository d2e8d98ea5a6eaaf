import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { searchSkills } from "./index";
import { createRouteFetch } from "./testing/route-fetch";

// Discovery returns metadata only; a response is a hit when it parses, whatever its status
// (docs/decisions/0003-skills-from-a-public-registry.md).
const URL_PDF = "https://skills.sh/api/search?q=pdf&limit=10";

function entry(id: string, source: string, extra: object = {}) {
  return { id, skillId: id.split("/")[2] ?? "", name: id.split("/")[2] ?? "", installs: 1, source, ...extra };
}

async function run(body: unknown, request: { query?: string; limit?: number; registry?: string } = {}, status = 200) {
  const fetch = createRouteFetch({ [URL_PDF]: { status, body: body as object } });
  const log = createEventLog();
  const outcome = await searchSkills({ query: request.query ?? "pdf", ...request }, { fetch, log });
  return { outcome, fetch, log };
}

describe("a bad query or limit is refused before any request", () => {
  it.each([
    ["an empty query", { query: "" }],
    ["a one-character query", { query: "p" }],
    ["a query of one character and spaces", { query: "  p  " }],
    ["a query over 200 characters", { query: "p".repeat(201) }],
    ["a query with a control character", { query: "pdf\u001b[2J" }],
    ["a query with a zero-width character", { query: "pd\u200bf" }],
    ["a zero limit", { limit: 0 }],
    ["a negative limit", { limit: -1 }],
    ["a fractional limit", { limit: 2.5 }],
    ["a limit over 50", { limit: 51 }],
    ["a NaN limit", { limit: Number.NaN }],
  ])("%s is bad-query and nothing is fetched", async (_name, request) => {
    const { outcome, fetch, log } = await run({ skills: [] }, request);
    expect(outcome.ok ? null : outcome.verdict.code).toBe("bad-query");
    expect(fetch.requests).toEqual([]);
    expect(log.ofKind("skills.step").map((e) => [e.step, e.code])).toEqual([["search", "bad-query"]]);
  });
});

describe("the registry origin is configurable and must be an https origin", () => {
  it("the default registry is https://skills.sh with q and limit in the query", async () => {
    const { fetch } = await run({ skills: [] });
    expect(fetch.requests).toEqual([URL_PDF]);
  });

  it("a configured registry is used", async () => {
    const fetch = createRouteFetch({ "https://mirror.example/api/search?q=pdf+tools&limit=5": { body: { skills: [] } } });
    const outcome = await searchSkills(
      { query: "pdf tools", limit: 5, registry: "https://mirror.example" },
      { fetch, log: createEventLog() },
    );
    expect(outcome.ok).toBe(true);
  });

  it.each([
    ["http", "http://skills.sh", "not-https"],
    ["a path", "https://skills.sh/api", "bad-request"],
    ["credentials", "https://u:p@skills.sh", "bad-request"],
    ["not a URL", "skills.sh", "bad-request"],
  ])("a registry with %s is refused before any request", async (_name, registry, code) => {
    const { outcome, fetch } = await run({ skills: [] }, { registry });
    expect(outcome.ok ? null : outcome.verdict.code).toBe(code);
    expect(fetch.requests).toEqual([]);
  });
});

describe("a search answer is a hit only when it parses, never on its status", () => {
  it("an HTML page with status 200 is unparsable-index, not an empty result", async () => {
    const fetch = createRouteFetch({
      [URL_PDF]: {
        body: "<!DOCTYPE html><html><body>404: This page could not be found.</body></html>",
        headers: { "content-type": "text/html" },
      },
    });
    const outcome = await searchSkills({ query: "pdf" }, { fetch, log: createEventLog() });
    expect(outcome.ok ? null : outcome.verdict.code).toBe("unparsable-index");
  });

  it.each([
    ["JSON without skills", { results: [] }],
    ["skills that is not an array", { skills: "none" }],
    ["a bare array", [entry("acme/r/s", "acme/r")]],
    ["JSON null", null],
  ])("%s is unparsable-index", async (_name, body) => {
    const { outcome } = await run(body);
    expect(outcome.ok ? null : outcome.verdict.code).toBe("unparsable-index");
  });

  it("a non-200 status is bad-status", async () => {
    const { outcome } = await run({ skills: [] }, {}, 503);
    expect(outcome.ok ? null : outcome.verdict.code).toBe("bad-status");
  });

  it("an empty skills array is an empty result, not a refusal", async () => {
    const { outcome } = await run({ skills: [] });
    expect(outcome.ok && outcome.hits).toEqual([]);
  });
});

describe("entries with a bad id are dropped and counted", () => {
  it.each([
    ["an id with the wrong shape", entry("../../etc/passwd", "../.."), "id-shape"],
    ["an id with an all-dots segment", entry("acme/../x", "acme/.."), "id-shape"],
    ["an id not under its source", entry("evil/skills-repo/pdf", "acme/skills-repo"), "id-not-under-source"],
    [
      "an id under a source that is only a prefix of owner/repo",
      entry("acme/skills-repo-2/pdf", "acme/skills-repo"),
      "id-not-under-source",
    ],
    ["a source of only the owner", entry("acme/skills-repo/pdf", "acme"), "id-not-under-source"],
    ["an entry that is not an object", "acme/r/s", "not-an-object"],
    ["an entry without a name", { id: "acme/r/s", source: "acme/r" }, "not-an-object"],
  ])("%s", async (_name, bad, reason) => {
    const { outcome } = await run({ skills: [entry("acme/r/good", "acme/r"), bad] });
    expect(outcome.ok && outcome.hits.map((h) => h.id)).toEqual(["acme/r/good"]);
    expect(outcome.ok && outcome.dropped).toEqual({ count: 1, byReason: { [reason]: 1 } });
  });

  it("a duplicate id is dropped", async () => {
    const { outcome } = await run({ skills: [entry("acme/r/s", "acme/r"), entry("acme/r/s", "acme/r", { name: "again" })] });
    expect(outcome.ok && outcome.hits).toHaveLength(1);
    expect(outcome.ok && outcome.dropped.byReason).toEqual({ duplicate: 1 });
  });

  it("names are sanitized on the way in", async () => {
    const { outcome } = await run({ skills: [entry("acme/r/s", "acme/r", { name: "PDF\u001b]0;pwned\u0007 tools\u202e\n" })] });
    expect(outcome.ok && outcome.hits[0]?.name).toBe("PDF tools");
  });
});

describe("install counts are unverified and never sort, rank or gate (anyone can forge them)", () => {
  it("hits come back ordered by id whatever their install counts", async () => {
    const { outcome } = await run({
      skills: [
        entry("zeta/r/s", "zeta/r", { installs: 9_999_999 }),
        entry("acme/r/s", "acme/r", { installs: 0 }),
        entry("mid/r/s", "mid/r", { installs: 50 }),
      ],
    });
    expect(outcome.ok && outcome.hits.map((h) => [h.id, h.installsUnverified])).toEqual([
      ["acme/r/s", 0],
      ["mid/r/s", 50],
      ["zeta/r/s", 9_999_999],
    ]);
  });

  it("a huge install count does not keep a hit past the limit; the id order decides", async () => {
    const fetch = createRouteFetch({
      "https://skills.sh/api/search?q=pdf&limit=1": {
        body: { skills: [entry("zeta/r/s", "zeta/r", { installs: 1e9 }), entry("acme/r/s", "acme/r", { installs: 0 })] },
      },
    });
    const limited = await searchSkills({ query: "pdf", limit: 1 }, { fetch, log: createEventLog() });
    expect(limited.ok && limited.hits.map((h) => h.id)).toEqual(["acme/r/s"]);
    expect(limited.ok && limited.dropped.byReason).toEqual({ "over-limit": 1 });
  });

  it.each([
    ["a string", "12k"],
    ["a negative number", -5],
    ["a fraction", 1.5],
    ["missing", undefined],
  ])("an install count that is %s reads as null", async (_name, installs) => {
    const { outcome } = await run({ skills: [entry("acme/r/s", "acme/r", { installs })] });
    expect(outcome.ok && outcome.hits[0]?.installsUnverified).toBeNull();
  });

  it("a hit carries metadata only: no description or text field exists on it", async () => {
    const { outcome } = await run({
      skills: [entry("acme/r/s", "acme/r", { description: "CANARY-SKILL-TEXT-7f3a", content: "CANARY-SKILL-TEXT-7f3a" })],
    });
    expect(outcome.ok && Object.keys(outcome.hits[0] ?? {}).sort()).toEqual([
      "id",
      "installsUnverified",
      "name",
      "owner",
      "repo",
      "slug",
      "source",
    ]);
    expect(JSON.stringify(outcome)).not.toContain("CANARY");
  });

  it("the search is logged as one skills.step event", async () => {
    const { log } = await run({ skills: [entry("acme/r/s", "acme/r"), entry("bad", "x")] });
    const steps = log.ofKind("skills.step");
    expect(steps.map((e) => [e.step, e.allowed, e.detail])).toEqual([["search", true, "1 hits, 1 dropped"]]);
  });
});
