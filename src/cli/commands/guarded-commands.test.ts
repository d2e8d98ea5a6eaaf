import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `tab resolve` and `tab skills` fetch through the one guarded fetch. Each
// case is refused before any connection (a port check, or `localhost` resolving to loopback),
// so nothing here reaches the network.

const REPO = resolve(import.meta.dirname, "../../..");
const PIN = "0".repeat(64);
let dir = "";

async function tab(...args: string[]): Promise<{ code: number; lines: Record<string, unknown>[] }> {
  const parse = (stdout: string) =>
    stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  try {
    const { stdout } = await promisify(execFile)("node", ["bin/tab.mjs", ...args], { cwd: REPO });
    return { code: 0, lines: parse(stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, lines: parse(e.stdout) };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-cli-guard-"));
  await writeFile(join(dir, "config.yaml"), "allowed_remote_resources:\n  - https://localhost/\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("every CLI command that fetches refuses a private address or an unlisted port", () => {
  it("tab resolve refuses an allowlisted https://localhost/ resource with private-address", async () => {
    const args = ["--org-config", join(dir, "config.yaml"), "--cache", join(dir, "cas"), "--base", dir];
    const out = await tab("resolve", `https://localhost/harness.yaml#sha256=${PIN}`, ...args);
    expect(out.code).toBe(1);
    expect(out.lines[0]).toMatchObject({ field: "harness", verdict: "refused", code: "private-address" });
  });

  it.each([
    [
      "acquire from a well-known index on localhost is private-address",
      ["acquire", "https://localhost/.well-known/agent-skills/index.json#x"],
      "private-address",
    ],
    [
      "search on a registry on port 8443 is port-not-allowed",
      ["search", "lint", "--registry", "https://registry.example:8443"],
      "port-not-allowed",
    ],
  ])("tab skills: %s", async (_name, args, code) => {
    const out = await tab("skills", ...args, ...(args[0] === "acquire" ? ["--cache", join(dir, "skills")] : []));
    expect(out.code).toBe(1);
    expect(out.lines).toEqual([expect.objectContaining({ type: "refusal", code })]);
  });
});
