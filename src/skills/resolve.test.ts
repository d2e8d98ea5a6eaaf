import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { isUsableBranchName, parseSkillRef, resolveSkillAddress } from "./index";
import { createRouteFetch, type RouteAnswer } from "./testing/route-fetch";

// Address resolution: a discovery hit becomes
// {id, owner, repo, slug, commitSha, resolvedAt} by reading the default branch head.
const SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8";
const API = "https://api.github.com/repos/acme/skills-repo";
const clock = () => Date.UTC(2026, 7, 28, 12, 0, 0);

function gitRef(input: string) {
  const parsed = parseSkillRef(input);
  if (!parsed.ok || parsed.value.kind !== "git") throw new Error("test input must be a git ref");
  return parsed.value;
}

async function resolve(input: string, routes: Record<string, RouteAnswer>) {
  const fetch = createRouteFetch(routes);
  const log = createEventLog();
  const resolved = await resolveSkillAddress(gitRef(input), { fetch, log, clock });
  return { resolved, fetch, log };
}

describe("a hit is pinned to its repository's default branch head", () => {
  it("reads default_branch, then the commit at that branch, and records the full SHA and the time", async () => {
    const { resolved, fetch } = await resolve("acme/skills-repo/pdf-tools", {
      [API]: { body: { default_branch: "main" } },
      [`${API}/commits/main`]: { body: { sha: SHA } },
    });
    expect(resolved).toEqual({
      ok: true,
      address: {
        id: "acme/skills-repo/pdf-tools",
        owner: "acme",
        repo: "skills-repo",
        slug: "pdf-tools",
        commitSha: SHA,
        resolvedAt: "2026-08-28T12:00:00.000Z",
      },
    });
    expect(fetch.requests).toEqual([API, `${API}/commits/main`]);
  });

  it("a branch name with a slash is URL-encoded in the commits request", async () => {
    const { resolved, fetch } = await resolve("acme/skills-repo/pdf-tools", {
      [API]: { body: { default_branch: "release/v2" } },
      [`${API}/commits/release%2Fv2`]: { body: { sha: SHA } },
    });
    expect(resolved.ok).toBe(true);
    expect(fetch.requests[1]).toBe(`${API}/commits/release%2Fv2`);
  });

  it("an id carrying @<sha> is pinned without any request", async () => {
    const { resolved, fetch } = await resolve(`acme/skills-repo/pdf-tools@${SHA}`, {});
    expect(resolved.ok && resolved.address.commitSha).toBe(SHA);
    expect(fetch.requests).toEqual([]);
  });

  it.each([
    ["an abbreviated SHA", SHA.slice(0, 12)],
    ["an uppercase SHA", SHA.toUpperCase()],
    ["a SHA-256 object id", "a".repeat(64)],
    ["a number", 12345],
  ])("a head commit with %s is bad-pin", async (_name, sha) => {
    const { resolved } = await resolve("acme/skills-repo/pdf-tools", {
      [API]: { body: { default_branch: "main" } },
      [`${API}/commits/main`]: { body: { sha } },
    });
    expect(resolved.ok ? null : resolved.verdict.code).toBe(typeof sha === "number" ? "unparsable" : "bad-pin");
  });

  it.each([
    ["empty", ""],
    ["with a space", "my branch"],
    ["with ..", "a..b"],
    ["with a control character", "main\u0007"],
    ["ending in .lock", "main.lock"],
    ["starting with a slash", "/main"],
    ["with @{", "main@{1}"],
    ["non-ASCII", "maín"],
    ["a dot-led component", "feature/.hidden"],
  ])("a default branch that is %s is bad-pin and no commit is requested", async (_name, branch) => {
    const { resolved, fetch } = await resolve("acme/skills-repo/pdf-tools", { [API]: { body: { default_branch: branch } } });
    expect(resolved.ok ? null : resolved.verdict.code).toBe("bad-pin");
    expect(fetch.requests).toEqual([API]);
  });

  it.each([
    ["a missing repository (404)", { [API]: { status: 404, body: { message: "Not Found" } } }, "bad-status"],
    ["a repository without default_branch", { [API]: { body: { name: "skills-repo" } } }, "unparsable"],
    ["an HTML page with status 200", { [API]: { body: "<html>rate limited</html>" } }, "unparsable"],
    ["a redirect (renamed repository)", { [API]: { status: 301, body: { message: "Moved Permanently" } } }, "bad-status"],
  ])("%s is refused", async (_name, routes, code) => {
    const { resolved, log } = await resolve("acme/skills-repo/pdf-tools", routes as Record<string, RouteAnswer>);
    expect(resolved.ok ? null : resolved.verdict.code).toBe(code);
    expect(log.ofKind("skills.step").map((e) => [e.step, e.code])).toEqual([["resolve", code]]);
  });

  it.each([["main"], ["release/v2"], ["feature-x_1.2"]])("%s is a usable branch name", (name) => {
    expect(isUsableBranchName(name)).toBe(true);
  });
});
