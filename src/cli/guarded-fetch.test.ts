import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { fetchGuarded } from "../resolver";
import { searchSkills } from "../skills";
import { createGuardedFetch, FetchRefused, type GuardOptions, type Lookup, portsListedIn } from "./guarded-fetch";
import { createNodeUpstream } from "./proxy-upstream";

// One guarded fetch for every component that fetches on the Node host.
// Everything here stays on 127.0.0.1: names are answered by a fake `lookup` (no DNS), the one
// upstream is a local https server with a certificate made by openssl for these names, and the
// TEST ONLY override `allowPrivateForTests` lets the guard reach it where a test needs that.

const run = promisify(execFile);
let dir: string;
let server: Server;
let port: number;
let ca: string;
let seen: { host: string | undefined; sni: string | undefined; url: string | undefined }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-guarded-fetch-"));
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=upstream.test",
    "-addext",
    "subjectAltName=DNS:upstream.test,DNS:localhost",
  ]);
  ca = await readFile(cert, "utf8");
  server = createServer({ key: await readFile(key), cert: ca }, (request, response) => {
    seen.push({
      host: request.headers.host,
      sni: (request.socket as { servername?: string }).servername,
      url: request.url,
    });
    if (request.url === "/away") return response.writeHead(302, { location: "https://other.test/x" }).end();
    if (request.url === "/within") return response.writeHead(302, { location: "/a" }).end();
    if (request.url === "/big" || request.url?.startsWith("/api/search")) return response.end("x".repeat(2 * 1024 * 1024));
    response.end(`hello ${request.method} ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
});

/** A `lookup` that answers from a table and counts how often it was asked. */
function fakeLookup(answers: Record<string, string[]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string) => {
    calls.push(host);
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

/** The guard as a test reaches the local upstream: its port listed, 127.0.0.1 let through, its CA. */
function localGuard(lookup: Lookup, extra: GuardOptions = {}) {
  return createGuardedFetch({
    lookup,
    ports: (host) => (host === "upstream.test" ? [port] : []),
    allowPrivateForTests: new Set(["127.0.0.1"]),
    caForTests: ca,
    ...extra,
  });
}

async function refusalOf(promise: Promise<unknown>): Promise<{ code: string; reason: string } | "resolved"> {
  try {
    await promise;
    return "resolved";
  } catch (error) {
    expect(error).toBeInstanceOf(FetchRefused);
    return (error as FetchRefused).verdict;
  }
}

describe("the guarded fetch refuses a name that resolves to an address that is not public", () => {
  it.each([
    ["loopback", ["127.0.0.1"]],
    ["a private network", ["10.0.0.7"]],
    ["the cloud metadata address", ["169.254.169.254"]],
    ["CGNAT", ["100.64.0.1"]],
    ["IPv6 loopback", ["::1"]],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["IPv4-translated (::ffff:0:0:0/96)", ["::ffff:0:808:808"]],
    ["NAT64 of a private address", ["64:ff9b::a00:1"]],
    ["unique-local IPv6", ["fd00::1"]],
    ["one public and one private answer", ["140.82.112.6", "10.0.0.1"]],
  ])("%s is private-address, and nothing connects", async (_name, addresses) => {
    const guard = createGuardedFetch({ lookup: fakeLookup({ "upstream.test": addresses }), caForTests: ca });
    const verdict = await refusalOf(guard.fetch("https://upstream.test/a.md"));
    expect(verdict).toMatchObject({ code: "private-address" });
    expect(seen).toEqual([]);
  });

  it("refuses the real localhost (an allowlisted https://localhost/a.md never reaches 127.0.0.1:443)", async () => {
    const verdict = await refusalOf(createGuardedFetch().fetch("https://localhost/a.md"));
    expect(verdict).toMatchObject({ code: "private-address" });
  });
});

describe("the guarded fetch refuses what its rules do not list, before any lookup", () => {
  it.each([
    ["a port the caller's rules do not list", "https://upstream.test:8443/a", "port-not-allowed"],
    ["port 80 over https", "https://upstream.test:80/a", "port-not-allowed"],
    ["plain http", "http://upstream.test/a", "not-https"],
    ["another scheme", "ftp://upstream.test/a", "not-https"],
    ["an IPv4 literal", "https://127.0.0.1/a", "ip-literal"],
    ["an IPv4 literal in another spelling", "https://0x7f.1/a", "ip-literal"],
    ["an IPv6 literal", "https://[::1]/a", "ip-literal"],
    ["userinfo", "https://user@upstream.test/a", "bad-request"],
  ])("%s is %s", async (_name, url, code) => {
    const lookup = fakeLookup({ "upstream.test": ["140.82.112.6"] });
    const verdict = await refusalOf(createGuardedFetch({ lookup }).fetch(url));
    expect(verdict).toMatchObject({ code });
    expect(lookup.calls).toEqual([]);
  });

  it("allows a port other than 443 only for the host whose rules list it", () => {
    const ports = portsListedIn(["https://upstream.test:8443/skills/", "https://other.test/", "not a url"]);
    expect(ports("upstream.test")).toEqual([8443]);
    expect(ports("other.test")).toEqual([]);
  });
});

describe("the guarded fetch connects to the address it checked and nowhere else", () => {
  it("resolves the name once, connects to that address with the name as SNI and Host", async () => {
    let answer = "127.0.0.1";
    const calls: string[] = [];
    // A rebinding resolver: any later answer would be a private address the guard never allowed.
    const lookup: Lookup = async (host) => {
      calls.push(host);
      const address = answer;
      answer = "10.0.0.1";
      return [{ address, family: 4 }];
    };
    const response = await localGuard(lookup).fetch(`https://upstream.test:${port}/a?x=1`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("hello GET /a?x=1");
    expect(calls).toEqual(["upstream.test"]);
    expect(seen).toEqual([{ host: `upstream.test:${port}`, sni: "upstream.test", url: "/a?x=1" }]);
  });

  it("refuses an address handed in by the caller that is not public, without connecting", async () => {
    const guard = createGuardedFetch({ lookup: fakeLookup({}), ports: () => [port], caForTests: ca });
    const verdict = await refusalOf(
      guard.request(`https://upstream.test:${port}/a`, { method: "GET", headers: [], body: null, address: "127.0.0.1" }),
    );
    expect(verdict).toMatchObject({ code: "private-address" });
    expect(seen).toEqual([]);
  });

  it("is the proxy's upstream too: the policy's ports and the same private-address check", async () => {
    const policy = () => ({
      version: 1 as const,
      hosts: [{ host: "upstream.test", ports: [port] }],
      ports: [443],
      http: "upgrade" as const,
      vaults: [],
    });
    const refusing = createNodeUpstream({ policy, lookup: fakeLookup({ "upstream.test": ["127.0.0.1"] }) });
    expect((await refusing.resolveHost("upstream.test")).verdict).toMatchObject({ code: "private-address" });
    const elsewhere = createNodeUpstream({ policy, lookup: fakeLookup({ "other.test": ["140.82.112.6"] }) });
    const init = { method: "GET", headers: [], body: null, redirect: "manual" as const };
    expect(await refusalOf(elsewhere.fetch(`https://other.test:${port}/a`, init))).toMatchObject({ code: "port-not-allowed" });
    expect(seen).toEqual([]);
  });
});

describe("the guarded fetch never follows a redirect", () => {
  it("refuses a redirect to another host with redirect-other-host", async () => {
    const verdict = await refusalOf(localGuard(fakeLookup({ "upstream.test": ["127.0.0.1"] })).fetch(`https://upstream.test:${port}/away`));
    expect(verdict).toMatchObject({ code: "redirect-other-host" });
    expect(seen.map((s) => s.url)).toEqual(["/away"]);
  });

  it("returns a redirect within the host as it is, unfollowed", async () => {
    const response = await localGuard(fakeLookup({ "upstream.test": ["127.0.0.1"] })).fetch(`https://upstream.test:${port}/within`);
    expect(response.status).toBe(302);
    expect(seen.map((s) => s.url)).toEqual(["/within"]);
  });
});

describe("the resolver and skills through the guarded fetch keep their codes and their caps", () => {
  it.each([
    ["private-address", "https://localhost"],
    ["port-not-allowed", "https://upstream.test:8443"],
  ])("the resolver and skills report %s as a refusal, not a network failure", async (code, origin) => {
    const guard = createGuardedFetch({ lookup: fakeLookup({ localhost: ["127.0.0.1"], "upstream.test": ["140.82.112.6"] }) });
    const resolved = await fetchGuarded(`${origin}/a.md`, guard.fetch, { maxBytes: 1024 });
    expect(resolved).toMatchObject({ ok: false, transient: false, verdict: { code } });
    const searched = await searchSkills({ query: "lint", registry: origin }, { fetch: guard.fetch, log: createEventLog() });
    expect(searched).toMatchObject({ ok: false, verdict: { code } });
  });

  it("the resolver's and skills' body caps hold on a body streamed through the guard", async () => {
    const guard = localGuard(fakeLookup({ "upstream.test": ["127.0.0.1"] }));
    const resolved = await fetchGuarded(`https://upstream.test:${port}/big`, guard.fetch, { maxBytes: 1024 });
    expect(resolved).toMatchObject({ ok: false, verdict: { code: "too-large" } });
    const registry = `https://upstream.test:${port}`;
    const searched = await searchSkills({ query: "lint", registry }, { fetch: guard.fetch, log: createEventLog() });
    expect(searched).toMatchObject({ ok: false, verdict: { code: "too-large" } });
  });

  it("the resolver reports a redirect to another host as redirect-other-host", async () => {
    const guard = localGuard(fakeLookup({ "upstream.test": ["127.0.0.1"] }));
    const out = await fetchGuarded(`https://upstream.test:${port}/away`, guard.fetch, { maxBytes: 1024 });
    expect(out).toMatchObject({ ok: false, transient: false, verdict: { code: "redirect-other-host" } });
  });
});
