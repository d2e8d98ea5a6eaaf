import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createDirStore } from "./dir-store.node";
import { createCas, createMemoryStore } from "./index";
import { runCasContract } from "./testing/run-contract";

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tab-cas-"));
  roots.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of roots) await rm(dir, { recursive: true, force: true });
});

runCasContract("memory store", { create: () => createMemoryStore() });
runCasContract("directory store", { create: async () => createDirStore(await freshDir()) });

describe("the directory store writes atomically (no half-written entry is ever readable)", () => {
  it("leaves no temporary file behind and puts the blob under blobs/<aa>/<sha256>", async () => {
    const dir = await freshDir();
    const cas = createCas({ store: createDirStore(dir) });
    const key = await cas.put(utf8("abc"));
    expect(await readdir(join(dir, "tmp"))).toEqual([]);
    expect(await readdir(join(dir, "blobs", key.slice(0, 2)))).toEqual([key]);
    expect(cas.locate(key)).toBe(join(dir, "blobs", key.slice(0, 2), key));
  });

  it.each([["../../etc/passwd"], ["ABC"], [""]])(
    "refuses a key that is not a lowercase sha256 (%j) instead of touching the path",
    async (key) => {
      const store = createDirStore(await freshDir());
      expect(await store.getBlob(key)).toBeNull();
      await expect(store.putBlob(key, utf8("x"))).rejects.toThrow(/not a sha256 key/);
    },
  );
});
