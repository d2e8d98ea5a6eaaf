import { describe, expect, it } from "vitest";
import { concatBytes, utf8 } from "../bytes";
import { createCas, createMemoryStore } from "../cas";
import { createEventLog, type EventLog } from "../log";
import { Policy } from "../policy";
import { createProxy } from "../proxy";
import { exchangeOnce } from "../proxy/testing/memory";
import {
  createMemoryLocalFiles,
  createRuntimeFetch,
  createRuntimeFetchEndpoint,
  type ResolveOptions,
  type RuntimeDelivery,
  type RuntimeFetch,
  resolveHarnessSession,
} from "./index";
import { createMemoryFetch, githubRepo, pinOf, type Route } from "./testing/memory-fetch";

// Run-time loading, the last phase of docs/decisions/0001-harness-resources-by-url-and-path.md, is
// opt-in per harness, every run-time resource goes through the same validation and caching as
// the harness's, and every fetch is in the run's audit log. These tests hold the answers.

const C = "c".repeat(40);
const RAW = `https://raw.githubusercontent.com/org/lib/${C}`;
const TREE = `https://github.com/org/lib/tree/${C}`;
const ORG = { allowed_remote_resources: ["https://github.com/org/lib/", "https://raw.githubusercontent.com/org/lib/"] };
const NOTES = "---\nname: notes\ndescription: d\n---\nrun-time notes\n";
const SKILL = "---\nname: lint\ndescription: d\n---\nlint things\n";
const Z = "0".repeat(64);
const RUNTIME =
  "allow_runtime_fetch: true\nallowed_remote_resources:\n  - https://raw.githubusercontent.com/org/lib/\n  - https://github.com/org/lib/\n";

async function setup(harness: string, over: Partial<ResolveOptions> = {}, routes: Record<string, Route> = {}) {
  const repo = await githubRepo("org", "lib", C, { "skills/lint/SKILL.md": SKILL, "notes.md": NOTES });
  const local = createMemoryLocalFiles({ "/repo/.fullsend/harness/h.yaml": harness });
  const fetch = createMemoryFetch({ ...repo.routes, ...routes });
  const log = createEventLog();
  const cas = createCas({ store: createMemoryStore(), log });
  const { resolution, session } = await resolveHarnessSession({
    harness: "/repo/.fullsend/harness/h.yaml",
    local,
    cas,
    fetch,
    log,
    orgConfig: ORG,
    runId: "run-1",
    ...over,
  });
  if (!session) throw new Error(`the harness did not resolve: ${resolution.error?.reason}`);
  return { runtime: createRuntimeFetch(session), resolution, fetch, log, repo };
}

const notesPin = () => pinOf(NOTES);

describe("a run-time fetch answers as the reference does", () => {
  it.each<[string, string, (r: { skillPin: string }) => Promise<unknown>, number, string, Partial<ResolveOptions>?]>([
    ["a body without a url is 400 bad-request", RUNTIME, async () => ({}), 400, "bad-request"],
    ["a body that is not a JSON object is 400 bad-request", RUNTIME, async () => undefined, 400, "bad-request"],
    ["a url that is a path, not a URL, is 400 bad-request", RUNTIME, async () => ({ url: "/etc/passwd" }), 400, "bad-request"],
    ["a URL without a pin is 400 hash-missing", RUNTIME, async () => ({ url: `${RAW}/notes.md` }), 400, "hash-missing"],
    ["a URL with a malformed pin is 400 hash-missing", RUNTIME, async () => ({ url: `${RAW}/notes.md#sha256=abc` }), 400, "hash-missing"],
    [
      "an http URL is 400 not-https",
      RUNTIME,
      async () => ({ url: `http://raw.githubusercontent.com/org/lib/${C}/notes.md#sha256=${Z}` }),
      400,
      "not-https",
    ],
    [
      "a URL outside the effective allowlist is 403 not-allowlisted",
      RUNTIME,
      async () => ({ url: `https://raw.githubusercontent.com/other/lib/${C}/notes.md#sha256=${Z}` }),
      403,
      "not-allowlisted",
    ],
    [
      "a skill that is not a forge directory URL is 400",
      RUNTIME,
      async () => ({ url: `${RAW}/skills/lint#sha256=${Z}`, kind: "skill" }),
      400,
      "invalid-harness",
    ],
    [
      "a skill URL naming the repository root is 400",
      RUNTIME,
      async () => ({ url: `https://github.com/org/lib/tree/${C}#sha256=${Z}` }),
      400,
      "invalid-harness",
    ],
    [
      "bytes that do not match the pin are 422 hash-mismatch",
      RUNTIME,
      async () => ({ url: `${RAW}/notes.md#sha256=${Z}` }),
      422,
      "hash-mismatch",
    ],
    [
      "a skill directory whose tree hash is not its pin is 422 hash-mismatch",
      RUNTIME,
      async () => ({ url: `${TREE}/skills/lint#sha256=${Z}` }),
      422,
      "hash-mismatch",
    ],
    ["a network failure is 502 fetch-failed", RUNTIME, async () => ({ url: `${RAW}/gone.md#sha256=${Z}` }), 502, "fetch-failed"],
    ["a status other than 200 is 502 bad-status", RUNTIME, async () => ({ url: `${RAW}/missing.md#sha256=${Z}` }), 502, "bad-status"],
    [
      "a file over the size cap is 413 too-large",
      RUNTIME,
      async () => ({ url: `${RAW}/notes.md#sha256=${await notesPin()}` }),
      413,
      "too-large",
      { limits: { maxFileBytes: 8 } },
    ],
    [
      "a cache miss while offline is 503 offline-miss",
      RUNTIME,
      async () => ({ url: `${RAW}/notes.md#sha256=${await notesPin()}` }),
      503,
      "offline-miss",
      { offline: true },
    ],
    [
      "a harness without allow_runtime_fetch answers 404 runtime-fetch-not-allowed",
      "allowed_remote_resources:\n  - https://raw.githubusercontent.com/org/lib/\n",
      async () => ({ url: `${RAW}/notes.md#sha256=${await notesPin()}` }),
      404,
      "runtime-fetch-not-allowed",
    ],
    [
      "a pinned file under the allowlist is 200 served",
      RUNTIME,
      async () => ({ url: `${RAW}/notes.md#sha256=${await notesPin()}` }),
      200,
      "served",
    ],
    [
      "a pinned skill directory is 200 served",
      RUNTIME,
      async ({ skillPin }) => ({ url: `${TREE}/skills/lint#sha256=${skillPin}` }),
      200,
      "served",
    ],
  ])("%s", async (_, harness, body, status, code, over = {}) => {
    const { runtime, repo } = await setup(harness, over, { [`${RAW}/missing.md`]: { status: 404, body: "no" } });
    const answer = await runtime.handle(await body({ skillPin: await repo.dirPin("skills/lint") }));
    expect({ status: answer.status, code: answer.verdict.code, allowed: answer.verdict.allowed }).toEqual({
      status,
      code,
      allowed: code === "served",
    });
  });

  it("more than max_runtime_fetches calls is 429 runtime-fetch-limit, refused calls counting too", async () => {
    const { runtime, fetch } = await setup(`${RUNTIME}max_runtime_fetches: 2\n`);
    const ok = { url: `${RAW}/notes.md#sha256=${await notesPin()}` };
    expect((await runtime.handle({ url: `${RAW}/notes.md` })).status).toBe(400);
    expect((await runtime.handle(ok)).status).toBe(200);
    const third = await runtime.handle(ok);
    expect(third).toMatchObject({ status: 429, verdict: { code: "runtime-fetch-limit", allowed: false, by: "resolver" } });
    expect(fetch.calls.filter((u) => u.endsWith("/notes.md"))).toHaveLength(1);
  });

  it("max_runtime_fetches defaults to 10", async () => {
    const { runtime } = await setup(RUNTIME);
    const ok = { url: `${RAW}/notes.md#sha256=${await notesPin()}` };
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await runtime.handle(ok)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(runtime.max).toBe(10);
  });

  it("a URL the harness pinned one way cannot be fetched at run time under another pin (one pin per URL)", async () => {
    const pin = await notesPin();
    const { runtime } = await setup(`${RUNTIME}agent: ${RAW}/notes.md#sha256=${pin}\n`);
    const other = await runtime.handle({ url: `${RAW}/notes.md#sha256=${"1".repeat(64)}` });
    expect(other).toMatchObject({ status: 422, verdict: { code: "hash-mismatch" } });
  });

  it("a second fetch of the same pinned URL is served from the cache, re-verified", async () => {
    const { runtime, fetch } = await setup(RUNTIME);
    const ok = { url: `${RAW}/notes.md#sha256=${await notesPin()}` };
    expect((await runtime.handle(ok)).cache).toBe("miss");
    expect((await runtime.handle(ok)).cache).toBe("hit");
    expect(fetch.calls.filter((u) => u.endsWith("/notes.md"))).toHaveLength(1);
  });

  it("a served file carries its bytes under its URL's file name; a skill its files", async () => {
    const { runtime, repo } = await setup(RUNTIME);
    const file = await runtime.handle({ url: `${RAW}/notes.md#sha256=${await notesPin()}` });
    expect(file).toMatchObject({ kind: "file", sha256: await notesPin(), url: `${RAW}/notes.md` });
    expect(file.files?.map((f) => [f.path, new TextDecoder().decode(f.bytes)])).toEqual([["notes.md", NOTES]]);
    const dir = await runtime.handle({ url: `${TREE}/skills/lint#sha256=${await repo.dirPin("skills/lint")}` });
    expect(dir).toMatchObject({ kind: "directory", sha256: await repo.dirPin("skills/lint") });
    expect(dir.files?.map((f) => f.path)).toEqual(["SKILL.md"]);
  });
});

describe("each run-time fetch is one resolver event under the run", () => {
  it("adds one resolver.step per call, under the harness's node, after the harness's nodes, without reopening the run", async () => {
    const { runtime, resolution, log } = await setup(RUNTIME);
    const from = log.nextSeq;
    await runtime.handle({ url: `${RAW}/notes.md#sha256=${await notesPin()}` });
    await runtime.handle({ url: `${RAW}/notes.md` });
    await runtime.handle({});
    const events = log.events().filter((e) => e.seq >= from);
    const steps = events.filter((e) => e.kind === "resolver.step");
    expect(steps.map((e) => e.kind === "resolver.step" && [e.run, e.field, e.code, e.parent, e.id])).toEqual([
      ["run-1", "runtime_fetch[0]", "served", 0, resolution.resources.length],
      ["run-1", "runtime_fetch[1]", "hash-missing", 0, resolution.resources.length + 1],
      ["run-1", "runtime_fetch", "bad-request", 0, resolution.resources.length + 2],
    ]);
    expect(events.some((e) => e.kind === "resolver.run")).toBe(false);
  });

  it("leaves the resolution it returned as it was", async () => {
    const { runtime, resolution } = await setup(RUNTIME);
    const before = resolution.resources.length;
    await runtime.handle({ url: `${RAW}/notes.md#sha256=${await notesPin()}` });
    expect(resolution.resources).toHaveLength(before);
  });
});

// The endpoint through a real proxy, as the guest's tab-fetch calls it.
const OWN = "10.0.2.2:3128";
const POLICY = Policy.parse({ version: 1, hosts: [] });

function proxied(log: EventLog) {
  const endpoint = createRuntimeFetchEndpoint();
  const proxy = createProxy({
    policy: () => POLICY,
    fetch: async () => new Response("never", { status: 500 }),
    clock: () => 1000,
    log,
    ownHost: OWN,
    handlers: endpoint.handlers,
  });
  const post = (body: string) => {
    const bytes = utf8(body);
    const head = `POST /v0/resolve HTTP/1.1\r\nHost: ${OWN}\r\nUser-Agent: curl/8.5.0\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
    return exchangeOnce(proxy, concatBytes(utf8(head), bytes));
  };
  return { endpoint, post };
}

describe("POST /v0/resolve, open only while an allowing run lasts", () => {
  it("is not there before a run is armed, nor after it closed: 404 runtime-fetch-not-allowed", async () => {
    const { runtime, log } = await setup(RUNTIME);
    const { endpoint, post } = proxied(log);
    const body = JSON.stringify({ url: `${RAW}/notes.md#sha256=${await notesPin()}` });
    const before = await post(body);
    expect([before.status, before.headers["x-verdict"]]).toEqual([404, "runtime-fetch-not-allowed"]);
    const close = endpoint.arm({ fetch: runtime, deliver: async () => ({ path: "/mnt/tab/run/run-1/runtime/0" }) });
    expect((await post(body)).status).toBe(200);
    close();
    const after = await post(body);
    expect([after.status, after.headers["x-verdict"]]).toEqual([404, "runtime-fetch-not-allowed"]);
    expect(endpoint.armed()).toBeNull();
  });

  it("serves a pinned resource: delivered into the run's tree, answered with where and each file's digest", async () => {
    const { runtime, log } = await setup(RUNTIME);
    const { endpoint, post } = proxied(log);
    const delivered: RuntimeDelivery[] = [];
    endpoint.arm({
      fetch: runtime,
      deliver: async (d) => {
        delivered.push(d);
        return { path: `/mnt/tab/run/${d.run}/runtime/${d.index}` };
      },
    });
    const answer = await post(JSON.stringify({ url: `${RAW}/notes.md#sha256=${await notesPin()}` }));
    expect([answer.status, answer.headers["x-verdict"]]).toEqual([200, "served"]);
    expect(JSON.parse(answer.body)).toMatchObject({
      verdict: "served",
      path: "/mnt/tab/run/run-1/runtime/0",
      sha256: await notesPin(),
      files: [{ path: "notes.md", sha256: await notesPin(), size: NOTES.length }],
      fetches: { used: 1, max: 10 },
    });
    expect(answer.body).not.toContain("run-time notes");
    expect(delivered.map((d) => [d.index, d.kind, d.files.map((f) => f.path)])).toEqual([[0, "file", ["notes.md"]]]);
    const decisions = log.events().filter((e) => e.kind === "proxy.decision" && e.target.startsWith(RAW));
    expect(decisions).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{url:", 400, "bad-request"],
    ["no pin", JSON.stringify({ url: `${RAW}/notes.md` }), 400, "hash-missing"],
    ["not allowlisted", JSON.stringify({ url: `https://example.com/notes.md#sha256=${Z}` }), 403, "not-allowlisted"],
    ["integrity mismatch", JSON.stringify({ url: `${RAW}/notes.md#sha256=${Z}` }), 422, "hash-mismatch"],
  ])("answers a refusal (%s) with its status, X-Verdict and the refusal body", async (_, body, status, code) => {
    const { runtime, log } = await setup(RUNTIME);
    const { endpoint, post } = proxied(log);
    endpoint.arm({ fetch: runtime, deliver: async () => ({ path: "/x" }) });
    const answer = await post(body);
    expect([answer.status, answer.headers["x-verdict"], JSON.parse(answer.body).code]).toEqual([status, code, code]);
  });

  it("answers 429 runtime-fetch-limit past the limit", async () => {
    const { runtime, log } = await setup(`${RUNTIME}max_runtime_fetches: 1\n`);
    const { endpoint, post } = proxied(log);
    endpoint.arm({ fetch: runtime, deliver: async () => ({ path: "/x" }) });
    const body = JSON.stringify({ url: `${RAW}/notes.md#sha256=${await notesPin()}` });
    expect((await post(body)).status).toBe(200);
    const second = await post(body);
    expect([second.status, second.headers["x-verdict"]]).toEqual([429, "runtime-fetch-limit"]);
  });

  it("records a harness without allow_runtime_fetch refusing, under its run, when such a run is armed", async () => {
    const { runtime, log } = await setup("allowed_remote_resources:\n  - https://raw.githubusercontent.com/org/lib/\n");
    const { endpoint, post } = proxied(log);
    endpoint.arm({ fetch: runtime as RuntimeFetch, deliver: async () => ({ path: "/x" }) });
    const answer = await post(JSON.stringify({ url: `${RAW}/notes.md#sha256=${Z}` }));
    expect([answer.status, answer.headers["x-verdict"]]).toEqual([404, "runtime-fetch-not-allowed"]);
    expect(log.events().some((e) => e.kind === "resolver.step" && e.code === "runtime-fetch-not-allowed" && e.run === "run-1")).toBe(true);
  });
});
