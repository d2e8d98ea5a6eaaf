import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { createPolicyHolder, DEFAULT_POLICY } from "../policy";
import { createGuestUpstream } from "./guest";
import { visibleLine } from "./guest/terminal";
import { recorded, symlinksUnder } from "./recordings";

let root = "";
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "tab-recordings-"));
  await mkdir(join(root, "example.com/dir"), { recursive: true });
  await writeFile(join(root, "example.com/page"), "page body");
  await writeFile(join(root, "example.com/dir/_index"), "index body");
  await writeFile(join(root, "example.com/search__query=q=a%2Fb"), "query body");
  await writeFile(join(root, "example.com/gone.status"), "410\n");
  await writeFile(join(root, "example.com/typed"), "{}");
  await writeFile(join(root, "example.com/typed.headers.json"), JSON.stringify({ "content-type": "application/json" }));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("recordings are never read through a symbolic link", () => {
  let outside = "";
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), "tab-outside-"));
    await writeFile(join(outside, "secret"), "the tester's file");
    await mkdir(join(root, "links.example"), { recursive: true });
    await symlink(join(outside, "secret"), join(root, "links.example/file"));
    await symlink(outside, join(root, "links.example/dir"));
  });
  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
  });

  it("a link to a file, or a folder that is a link, answers as no recording", () => {
    expect(recorded([root], "https://links.example/file")).toBeNull();
    expect(recorded([root], "https://links.example/dir/secret")).toBeNull();
  });

  it("symlinksUnder names every link in the tree, found with lstat", () => {
    expect(symlinksUnder(root).sort()).toEqual([join(root, "links.example/dir"), join(root, "links.example/file")]);
    expect(symlinksUnder(join(root, "example.com"))).toEqual([]);
  });
});

describe("the recordings layout (host/path, _index, __query=, .status, .headers.json)", () => {
  it("answers a URL from the file at its host and path, status 200", () => {
    expect(recorded([root], "https://example.com/page")).toMatchObject({ status: 200, body: Buffer.from("page body") });
  });
  it("answers a path ending in / from its _index", () => {
    expect(recorded([root], "https://example.com/dir/")?.body.toString()).toBe("index body");
  });
  it("answers a query from the file named with __query= and its slashes as %2F", () => {
    expect(recorded([root], "https://example.com/search?q=a/b")?.body.toString()).toBe("query body");
  });
  it("takes the status from a .status file, alone an empty body", () => {
    expect(recorded([root], "https://example.com/gone")).toMatchObject({ status: 410, body: Buffer.alloc(0) });
  });
  it("takes the headers from a .headers.json file", () => {
    expect(recorded([root], "https://example.com/typed")?.headers).toEqual({ "content-type": "application/json" });
  });
  it("holds nothing for another host", () => {
    expect(recorded([root], "https://other.example/page")).toBeNull();
  });
});

describe("the headless guest's upstream from recordings", () => {
  const log = createEventLog();
  const upstream = () => createGuestUpstream({ kind: "recordings", dirs: [root] }, createPolicyHolder(DEFAULT_POLICY, log));
  const init = { method: "GET", headers: [] as [string, string][], body: null, redirect: "manual" as const };
  it("answers a recorded URL with its status, headers and body", async () => {
    const response = await upstream().fetch("https://example.com/typed", init);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe("{}");
  });
  it("answers 404 no recording for a URL the recordings do not hold", async () => {
    const response = await upstream().fetch("https://example.com/missing", init);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("no recording\n");
  });
});

describe("the headless terminal's cursor column", () => {
  it("counts only what shows on the cursor's line: colours and OSC marks out, after the last carriage return", () => {
    expect(visibleLine("old line\n\x1b]133;A\x07\x1b[1;32mguest\x1b[0m:~$ ")).toBe("guest:~$ ");
    expect(visibleLine("progress 10%\rdone ")).toBe("done ");
  });
});
