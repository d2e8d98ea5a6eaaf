import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeGuestLock } from "../guest/testing/guest-lock";
import { REPO_ROOT, runTab } from "../testing/run-tab";

// These run the real binary, which boots the real guest (the shipped state in v86 under Node):
// slow, so one process per case, under the machine-wide guest lock. The shipped lessons run under
// the same command as a step of `npm test` of their own (`npm run test:lessons`).
const REPO = REPO_ROOT;
const HERE = join(REPO, "src/cli/lesson/testing");
const RUN_TIMEOUT_MS = 900_000;

/** Runs `node bin/tab.mjs …`: the program behind `npx tab …`. */
const tab = runTab;

describe("npx tab lesson test", { timeout: RUN_TIMEOUT_MS }, () => {
  let lock: { release(): void };
  let scratch = "";
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "tab-lesson-test-"));
    lock = await takeGuestLock();
  }, RUN_TIMEOUT_MS);
  afterAll(async () => {
    lock?.release();
    await rm(scratch, { recursive: true, force: true });
  });

  it("exits 0 when every step's expect holds, one PASS line per step", async () => {
    const out = await tab("lesson", "test", join(HERE, "passes.yaml"), "--recordings", join(HERE, "recordings"));
    expect(out.stdout).toMatch(/PASS step 1 "Send a file to pastebin": .*host-not-allowed/);
    expect(out.stdout).toMatch(/PASS step 2 "Read the zen of GitHub"/);
    expect(out.code).toBe(0);
  });

  it("exits 1 naming the step that failed and its unmet item, with the verdict that decided instead", async () => {
    const out = await tab("lesson", "test", join(HERE, "fails.yaml"), "--recordings", join(HERE, "recordings"));
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/PASS step 1 "Say hello"/);
    expect(out.stdout).toMatch(/FAIL step 2 "Expect pastebin to answer"/);
    expect(out.stdout).toMatch(/unmet \{"exit":0\}/);
    expect(out.stdout).toMatch(/decisive .*host-not-allowed/);
  });

  it("boots the image cold with --boot fresh and judges the same", async () => {
    const out = await tab("lesson", "test", join(HERE, "passes.yaml"), "--recordings", join(HERE, "recordings"), "--boot", "fresh");
    expect(out.stdout).toMatch(/PASS step 1 "Send a file to pastebin": .*host-not-allowed/);
    expect(out.code).toBe(0);
  });

  it("runs several lessons in one process, each on a freshly restored guest, and fails when one fails", async () => {
    const out = await tab("lesson", "test", join(HERE, "passes.yaml"), join(HERE, "fails.yaml"), "--recordings", join(HERE, "recordings"));
    expect(out.code).toBe(1);
    expect(out.stdout.match(/restor|sha256/g)?.length).toBeGreaterThanOrEqual(2);
    expect(out.stdout).toMatch(/1 of 2 lesson\(s\) failed: .*fails\.yaml/);
  });

  it("refuses a lesson with an unknown field as lesson-invalid with its line, exit 64, before any guest starts", async () => {
    const file = join(scratch, "bad.yaml");
    await writeFile(file, `${await readFile(join(HERE, "passes.yaml"), "utf8")}colour: blue\n`);
    const out = await tab("lesson", "test", file);
    expect(out.code).toBe(64);
    expect(out.stderr).toMatch(/lesson-invalid/);
    expect(out.stderr).toMatch(/bad\.yaml:\d+:\d+/);
  });

  it("refuses a lesson whose bytes do not match the pin given with it as lesson-pin-mismatch, exit 64", async () => {
    const out = await tab("lesson", "test", `${join(HERE, "passes.yaml")}#sha256=${"0".repeat(64)}`);
    expect(out.code).toBe(64);
    expect(out.stderr).toMatch(/lesson-pin-mismatch/);
  });

  it("refuses bad options with exit 64", async () => {
    expect((await tab("lesson", "test", join(HERE, "passes.yaml"), "--boot", "warm")).code).toBe(64);
    expect((await tab("lesson", "test", join(HERE, "passes.yaml"), "--timeout", "soon")).code).toBe(64);
    expect((await tab("lesson", "test", join(HERE, "passes.yaml"), "--upstream", "not a url")).code).toBe(64);
  });
});
