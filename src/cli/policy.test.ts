import { execFile, execFile as execFileCallback } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toJsonLines } from "../log";
import { decisionLine } from "../policy-tools/testing/decisions";
import { type RunningProxy, startProxy } from "./testing/proxy-process";
import { REPO_ROOT, runTab } from "./testing/run-tab";

// `npx tab policy check|learn|replay` through the real binary (bin/tab.mjs), on files a user
// would pass it, and on a log the real `npx tab proxy` served from GET /v0/log.

const run = promisify(execFile);
const root = REPO_ROOT;

const tab = runTab;

let dir = "";
let policyFile = "";
let logFile = "";
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-policy-"));
  policyFile = file("policy.yaml");
  await writeFile(
    policyFile,
    "version: 1\nhosts:\n  - host: api.github.com\n    endpoints:\n      - methods: [GET]\n        paths: [/repos/]\n  - host: raw.githubusercontent.com\n",
  );
  logFile = file("run.jsonl");
  await writeFile(
    logFile,
    toJsonLines([
      decisionLine(1, { target: "https://api.github.com/repos/torvalds/linux/issues" }),
      decisionLine(2, {
        target: "https://pastebin.com/raw/abc",
        wouldRefuse: "host-not-allowed",
        wouldRefuseReason: "not on the allowlist",
      }),
      decisionLine(3, { target: "https://evil.example/", allowed: false, code: "host-not-allowed" }),
      decisionLine(4, { target: "https://localhost/admin", wouldRefuse: "host-not-allowed" }),
    ]),
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("npx tab policy check", () => {
  it("prints the decision and the matching rule, exit 0 when allowed", async () => {
    const out = await tab("policy", "check", policyFile, "GET https://api.github.com/repos/a/b");
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      "allowed served: GET api.github.com/repos/a/b is allowed\nrule: hosts[0] api.github.com, endpoints[0] GET /repos/\n",
    );
  });

  it("exit 1 when refused, with the code and reason", async () => {
    const out = await tab("policy", "check", policyFile, "POST https://api.github.com/repos/a");
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("refused endpoint-not-allowed: POST /repos/a is not an allowed endpoint of api.github.com");
  });

  it.each([
    ["a request line without a method", ["https://api.github.com/"], "METHOD URL"],
    ["a missing request line", [], "check takes POLICY"],
  ])("exit 64 on %s", async (_name, rest, message) => {
    const out = await tab("policy", "check", policyFile, ...rest);
    expect(out.code).toBe(64);
    expect(out.stderr).toContain(message);
  });

  it.each([
    ["GET https://localhost/"],
    ["GET http://LOCALHOST.:8080/admin"],
    ["CONNECT a.localhost:443"],
    ["GET https://127-0-0-1.nip.io/"],
    ["GET https://printer.local/"],
  ])("refuses %s private-address, exit 1, under a report-mode policy that names localhost", async (line) => {
    await writeFile(
      file("report-localhost.yaml"),
      "version: 1\nmode: report\nhttp: allow\nports: [443, 8080]\nhosts:\n  - host: localhost\n",
    );
    const out = await tab("policy", "check", file("report-localhost.yaml"), line);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^refused private-address: .*refused before any fetch, in every mode/);
    expect(out.stdout).not.toContain("would refuse");
  });

  it("exit 64 on a policy that does not parse, naming its line", async () => {
    await writeFile(file("bad.yaml"), "version: 1\nhosts:\n  - host: 127.0.0.1\n");
    const out = await tab("policy", "check", file("bad.yaml"), "GET https://a.example/");
    expect(out.code).toBe(64);
    expect(out.stderr).toContain("line 3, hosts.0.host");
  });
});

describe("npx tab policy learn", () => {
  it("prints the smallest policy for the log as JSON, never a private name, and the diff against --base", async () => {
    const out = await tab("policy", "learn", logFile, "--base", policyFile, "--depth", "1");
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      version: 1,
      ports: [443],
      http: "upgrade",
      vaults: [],
      hosts: [
        { host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] },
        { host: "pastebin.com", endpoints: [{ methods: ["GET"], paths: ["/raw/"] }] },
      ],
    });
    expect(out.stderr.split("\n")).toEqual(
      expect.arrayContaining([
        "- raw.githubusercontent.com any method, any path",
        "+ pastebin.com GET /raw/",
        expect.stringMatching(/^not learned: line 4 https:\/\/localhost\/admin: localhost is a loopback name/),
      ]),
    );
  });

  it("exit 64 on a bad --depth", async () => {
    expect((await tab("policy", "learn", logFile, "--depth", "x")).code).toBe(64);
  });
});

describe("npx tab policy replay", () => {
  it("prints each request's logged and new verdict and a summary; exit 1 when a verdict changed", async () => {
    const out = await tab("policy", "replay", policyFile, logFile);
    expect(out.code).toBe(1);
    expect(out.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^line 1 #1 GET https:\/\/api\.github\.com\/repos\/torvalds\/linux\/issues {2}served → served {2}unchanged/),
      expect.stringMatching(/^line 2 #2 .* served \(would refuse host-not-allowed\) → host-not-allowed {2}newly-refused/),
      expect.stringMatching(/^line 3 #3 .* host-not-allowed → host-not-allowed {2}unchanged/),
      expect.stringMatching(/^line 4 #4 .* newly-refused/),
      "4 requests re-decided: 2 unchanged, 2 newly refused, 0 newly allowed, 0 not re-decidable",
    ]);
  });

  it("exit 1 under a narrowed policy, naming the request that is newly refused", async () => {
    await writeFile(file("narrow.yaml"), "version: 1\nhosts:\n  - host: pastebin.com\n");
    const out = await tab("policy", "replay", file("narrow.yaml"), logFile);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^line 1 #1 GET \S+ {2}served → host-not-allowed {2}newly-refused: /m);
    expect(out.stdout).toMatch(/^line 2 #2 .* newly-allowed: /m);
    expect(out.stdout).toContain("4 requests re-decided: 1 unchanged, 2 newly refused, 1 newly allowed, 0 not re-decidable");
  });

  it("exit 64 and the line named when a decision line cannot be read", async () => {
    const text = await readFile(logFile, "utf8");
    await writeFile(
      file("bad.jsonl"),
      `${text}{"kind":"proxy.decision","seq":9,\n${JSON.stringify({ kind: "proxy.decision", seq: 10, time: 10 })}\n`,
    );
    const out = await tab("policy", "replay", policyFile, file("bad.jsonl"));
    expect(out.code).toBe(64);
    expect(out.stderr).toContain(`${file("bad.jsonl")}: line 5: not JSON`);
    expect(out.stderr).toContain(`${file("bad.jsonl")}: line 6: not a valid proxy.decision event`);
    expect(out.stdout).toBe("");
  });

  it("skips and counts the lines it does not need: an old llrun ruleset with null, a frame, a kind a newer version added", async () => {
    const text = await readFile(logFile, "utf8");
    const others = [
      {
        kind: "kernel.ruleset",
        seq: 5,
        time: 5,
        abi: 6,
        fsRo: ["*"],
        fsRw: ["*"],
        connect: [3128],
        bind: [null],
        scope: [],
        dropped: [],
        line: "llrun: ruleset",
      },
      { kind: "wire.frame", seq: 6, time: 6, dir: "in", proto: "tcp", summary: "SYN", bytes: 60 },
      { kind: "proxy.guess", seq: 7, time: 7 },
    ];
    await writeFile(file("mixed.jsonl"), `${text}${others.map((o) => JSON.stringify(o)).join("\n")}\nnot json\n`);
    const out = await tab("policy", "replay", policyFile, file("mixed.jsonl"));
    expect(out.code).toBe(1);
    expect(out.stdout.trim().split("\n").slice(-2)).toEqual([
      "4 requests re-decided: 2 unchanged, 2 newly refused, 0 newly allowed, 0 not re-decidable",
      '3 lines of 3 kinds not needed for a replay (1 kind this version does not know: "proxy.guess"); 1 line that is not an event skipped',
    ]);
    const learned = await tab("policy", "learn", file("mixed.jsonl"));
    expect(learned.code).toBe(0);
    expect(learned.stderr).toContain("3 lines of 3 kinds not needed for a draft");
  });

  it("reads a log from stdin", async () => {
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFileCallback(
        process.execPath,
        [join(root, "bin", "tab.mjs"), "policy", "replay", policyFile, "-"],
        { cwd: root },
        (error, stdout) => resolve({ code: error ? (error as { code: number }).code : 0, stdout }),
      );
      void readFile(logFile, "utf8").then((text) => child.stdin?.end(text));
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("4 requests re-decided");
  });

  it("exit 64 naming a file that cannot be read", async () => {
    const out = await tab("policy", "replay", policyFile, file("missing.jsonl"));
    expect(out.code).toBe(64);
    expect(out.stderr).toContain(`${file("missing.jsonl")}: cannot be read (ENOENT)`);
  });
});

describe("npx tab policy with smokescreen's ACL and log", () => {
  const testdata = join(root, "src", "policy-tools", "formats", "testdata");
  const acl = join(testdata, "smokescreen-acl.yaml");

  it("import --format smokescreen prints the role's policy and names what it cannot express", async () => {
    const out = await tab("policy", "import", "--format", "smokescreen", acl, "--role", "billing");
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).hosts.map((r: { host: string }) => r.host)).toEqual([
      "api.stripe.com",
      "hooks.example.com",
      "badexample1.com",
      "goodexample1.com",
    ]);
    expect(out.stderr).toContain(`${acl}: service billing: mitm_domains not imported`);
  });

  it("replay takes the ACL and the smokescreen log directly: zero changed verdicts, exit 0", async () => {
    const out = await tab("policy", "replay", acl, join(testdata, "smokescreen-billing.jsonl"), "--role", "billing");
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("8 requests re-decided: 7 unchanged, 0 newly refused, 0 newly allowed, 1 not re-decidable");
  });

  it("learn from a smokescreen log drafts in the format the user brought, and export says what an ACL loses", async () => {
    const learned = await tab("policy", "learn", join(testdata, "smokescreen-crawler.jsonl"), "--format", "smokescreen");
    expect(learned.code).toBe(0);
    expect(learned.stdout).toMatch(/^version: v1\n/);
    expect(learned.stdout).toContain("- en.wikipedia.org");
    const exported = await tab("policy", "export", "--format", "smokescreen", policyFile);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("- api.github.com");
    expect(exported.stderr).toContain("api.github.com: endpoints (methods and paths) cannot be expressed");
  });

  it("check takes srt / Claude Code settings directly; import and export --format sandbox-runtime", async () => {
    const settings = join(testdata, "srt-settings.json");
    const checked = await tab("policy", "check", settings, "CONNECT pypi.org:8443");
    expect(checked.code).toBe(0);
    expect(checked.stderr).toContain("network.allowUnixSockets not imported");
    expect((await tab("policy", "check", settings, "GET https://gist.github.com/")).code).toBe(1);
    const exported = await tab("policy", "export", "--format", "sandbox-runtime", policyFile);
    expect(JSON.parse(exported.stdout)).toEqual({
      network: { allowedDomains: ["api.github.com:443", "raw.githubusercontent.com:443"], deniedDomains: [] },
    });
    expect(exported.stderr).toContain("api.github.com: endpoints (methods and paths) cannot be expressed");
  });

  it("import --format awf reads gh-aw-firewall's config, naming what it cannot express", async () => {
    const out = await tab("policy", "import", "--format", "awf", join(testdata, "awf-config.yaml"));
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).hosts.map((r: { host: string }) => r.host)).toContain("registry.npmjs.org");
    expect(out.stderr).toContain("blockDomains gist.github.com would be a hole");
  });

  it("check takes an OpenShell sandbox policy directly, method and path included", async () => {
    const sandbox = join(testdata, "openshell-policy.yaml");
    expect((await tab("policy", "check", sandbox, "GET https://github.com/repos/a/b")).code).toBe(0);
    const refused = await tab("policy", "check", sandbox, "POST https://github.com/repos/a/b");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("endpoint-not-allowed");
    expect(refused.stderr).toContain("binaries not imported");
  });

  it("exit 64 on an unknown format", async () => {
    const out = await tab("policy", "import", "--format", "squid", acl);
    expect(out.code).toBe(64);
    expect(out.stderr).toContain('--format "squid" is not known');
  });
});

describe("npx tab policy on a log the real npx tab proxy served in report mode", () => {
  let upstream: Server;
  let proxy: RunningProxy;
  let port = 0;

  beforeAll(async () => {
    upstream = createServer((request, response) => response.end(`hello ${request.url}`));
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    port = (upstream.address() as AddressInfo).port;
    const reportPolicy = file("report.yaml");
    await writeFile(
      reportPolicy,
      `version: 1\nmode: report\nhttp: allow\nhosts:\n  - host: upstream.test\n    ports: [${port}]\n    endpoints:\n      - methods: [GET]\n        paths: [/allowed]\n`,
    );
    proxy = await startProxy([
      "--policy",
      reportPolicy,
      "--allow-private-for-tests",
      "127.0.0.1,::1",
      "--resolve",
      "upstream.test=127.0.0.1",
    ]);
  }, 60_000);

  afterAll(async () => {
    proxy?.child.kill("SIGTERM");
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  });

  it("serves what the endpoint allowlist would refuse, logs wouldRefuse, and a replay under enforce says what is newly refused", async () => {
    const curl = (url: string) =>
      run("/usr/bin/curl", ["-s", "--max-time", "20", "-x", proxy.url, url], { env: { ...process.env, NO_PROXY: "" } });
    expect((await curl(`http://upstream.test:${port}/allowed`)).stdout).toBe("hello /allowed");
    expect((await curl(`http://upstream.test:${port}/other`)).stdout).toBe("hello /other");
    await vi.waitFor(() => expect(proxy.stdout()).toContain("/other"), { timeout: 10_000 });
    const { stdout: log } = await run("/usr/bin/curl", ["-s", `${proxy.url}/v0/log`]);
    expect(log).toContain('"wouldRefuse":"endpoint-not-allowed"');
    await writeFile(file("served.jsonl"), log);
    await writeFile(
      file("enforce.yaml"),
      `version: 1\nhttp: allow\nhosts:\n  - host: upstream.test\n    ports: [${port}]\n    endpoints:\n      - methods: [GET]\n        paths: [/allowed]\n`,
    );
    const out = await tab("policy", "replay", file("enforce.yaml"), file("served.jsonl"));
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(new RegExp(`GET http://upstream.test:${port}/allowed {2}served → served {2}unchanged`));
    expect(out.stdout).toMatch(
      new RegExp(
        `GET http://upstream.test:${port}/other {2}served \\(would refuse endpoint-not-allowed\\) → endpoint-not-allowed {2}newly-refused`,
      ),
    );
    // Under a policy without the endpoint rule, /other is newly allowed.
    await writeFile(file("open.yaml"), `version: 1\nhttp: allow\nhosts:\n  - host: upstream.test\n    ports: [${port}]\n`);
    const opened = await tab("policy", "replay", file("open.yaml"), file("served.jsonl"));
    expect(opened.code).toBe(1);
    expect(opened.stdout).toMatch(/\/other .* newly-allowed/);
  });
});
