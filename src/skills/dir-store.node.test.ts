import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex, utf8 } from "../bytes";
import { createDirStores } from "./dir-store.node";
import type { SkillHandleRecord } from "./index";

// The CLI's store: keyed by sha256, re-hashed on every read.
const dirs: string[] = [];
async function fresh() {
  const dir = await mkdtemp(join(tmpdir(), "skills-store-"));
  dirs.push(dir);
  return { dir, ...createDirStores(dir) };
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const record = (sha: string): SkillHandleRecord => ({
  handle: `skill:${"a".repeat(32)}`,
  discoveryId: "acme/r/s",
  method: "git-commit-sha",
  sourceUrl: "https://github.com/acme/r/tree/x",
  commitSha: "9".repeat(40),
  indexDigest: null,
  pin: `acme/r/s@${"9".repeat(40)}`,
  skillMdSha256: sha,
  skillMdBytes: 3,
  scripts: [],
  resolvedAt: null,
  receivedAt: "2026-08-28T00:00:00.000Z",
});

describe("the directory store is content-addressed and re-hashes on read", () => {
  it("put returns the sha256 and get returns the same bytes", async () => {
    const { store } = await fresh();
    const sha = await store.put(utf8("abc"));
    expect(sha).toBe(await sha256Hex(utf8("abc")));
    expect(new TextDecoder().decode((await store.get(sha)) ?? new Uint8Array())).toBe("abc");
  });

  it("bytes changed on disk read as absent", async () => {
    const { dir, store } = await fresh();
    const sha = await store.put(utf8("abc"));
    await writeFile(join(dir, "blobs", sha), "abd");
    expect(await store.get(sha)).toBeNull();
  });

  it("a key that is not a sha256 reads as absent rather than as a path", async () => {
    const { store } = await fresh();
    expect(await store.get("../../etc/passwd")).toBeNull();
  });

  it("handle records round-trip and are listed; unknown or malformed handles read as null", async () => {
    const { dir, handles } = await fresh();
    const r = record("b".repeat(64));
    await handles.put(r);
    expect(await handles.get(r.handle)).toEqual(r);
    expect(await handles.list()).toEqual([r]);
    expect(await handles.get(`skill:${"c".repeat(32)}`)).toBeNull();
    expect(await handles.get("../x")).toBeNull();
    expect((await readdir(join(dir, "handles"))).every((n) => !n.endsWith(".tmp"))).toBe(true);
  });

  it("a handle the store did not mint is refused", async () => {
    const { handles } = await fresh();
    await expect(handles.put({ ...record("b".repeat(64)), handle: "../../evil" })).rejects.toThrow(/randomHandle/);
  });
});
