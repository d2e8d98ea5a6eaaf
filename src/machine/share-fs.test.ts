import { describe, expect, it } from "vitest";
import { type ShareFs, sharePath, writeIntoShare } from "./share-fs";

/** v86's 9p tree as far as the share uses it: folders by path and id. */
function fakeShare(): { fs: ShareFs; dirs: Map<string, number>; files: Map<string, string> } {
  const dirs = new Map<string, number>([["", 0]]);
  const files = new Map<string, string>();
  const fs: ShareFs = {
    SearchPath: (path) => ({ id: dirs.get(path) ?? -1 }),
    CreateDirectory: (name, parent) => {
      const parentPath = [...dirs].find(([, id]) => id === parent)?.[0] ?? "";
      const id = dirs.size;
      dirs.set(`${parentPath}/${name}`, id);
      return id;
    },
  };
  return { fs, dirs, files };
}

describe("writing into the guest's share", () => {
  it("creates the missing parent folders, each under its own parent, before the file", async () => {
    const { fs, dirs, files } = fakeShare();
    dirs.set("/run", 1);
    const create = async (path: string, bytes: Uint8Array) => {
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (!dirs.has(parent)) throw new Error(`no folder ${parent}`);
      files.set(path, new TextDecoder().decode(bytes));
    };
    await writeIntoShare(fs, create, "run/r1/scripts/check.sh", new TextEncoder().encode("echo ok"));
    expect([...dirs.keys()]).toEqual(["", "/run", "/run/r1", "/run/r1/scripts"]);
    expect([...files]).toEqual([["/run/r1/scripts/check.sh", "echo ok"]]);
  });

  it("names every file by one path: a leading slash, no empty parts", () => {
    expect(sharePath("tls/ca.pem")).toBe("/tls/ca.pem");
    expect(sharePath("//run//r1/x/")).toBe("/run/r1/x");
  });
});
