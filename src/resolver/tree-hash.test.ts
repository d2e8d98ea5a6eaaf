import { describe, expect, it } from "vitest";
import { sha256Hex, utf8 } from "../bytes";
import { GithubTree, parseGithubTreeUrl, parseTreeManifest, selectTreeFiles, treeHash, treeManifest } from "./index";

const A = "a".repeat(64);
const B = "b".repeat(64);

describe("the directory hash", () => {
  it("is sha256 of 'path:sha256' lines sorted by UTF-8 bytes, joined with \\n plus a final \\n", async () => {
    const files = [
      { path: "scripts/check.sh", sha256: B },
      { path: "SKILL.md", sha256: A },
    ];
    const manifest = `SKILL.md:${A}\nscripts/check.sh:${B}\n`;
    expect(treeManifest(files)).toBe(manifest);
    expect(await treeHash(files)).toBe(await sha256Hex(utf8(manifest)));
  });

  it("sorts by UTF-8 bytes, not UTF-16 code units (U+FF5E sorts before U+1F600)", () => {
    const files = [
      { path: "\u{1F600}.md", sha256: A },
      { path: "\uFF5E.md", sha256: B },
    ];
    expect(treeManifest(files).split("\n")[0]).toBe(`\uFF5E.md:${B}`);
  });

  it("does not depend on the order files were listed in", async () => {
    const files = [
      { path: "b", sha256: A },
      { path: "a", sha256: B },
      { path: "a/b", sha256: A },
    ];
    expect(await treeHash(files)).toBe(await treeHash([...files].reverse()));
  });

  it.each([
    ["a manifest without the final newline", `a:${A}`],
    ["a line with a dot-dot path", `../x:${A}\n`],
    ["a line with an upper-case hash", `a:${A.toUpperCase()}\n`],
  ])("a cached manifest is rejected when it is %s", (_, text) => {
    expect(parseTreeManifest(text)).toBeNull();
  });
});

describe("skill directories through the GitHub trees API (a skill is a forge directory)", () => {
  it.each([
    ["a pinned tree URL", "https://github.com/o/r/tree/abc123/skills/rust", { owner: "o", repo: "r", ref: "abc123", path: "skills/rust" }],
    ["the repository root", "https://github.com/o/r/tree/abc123", { owner: "o", repo: "r", ref: "abc123", path: "" }],
  ])("parses %s", (_, url, expected) => {
    expect(parseGithubTreeUrl(url)).toEqual(expected);
  });

  it.each([
    ["a blob URL", "https://github.com/o/r/blob/abc/x"],
    ["a non-forge host", "https://example.com/o/r/tree/abc/x"],
    ["a dot-dot segment", "https://github.com/o/r/tree/abc/%2e%2e/x"],
    ["an escaped slash", "https://github.com/o/r/tree/abc/a%2Fb"],
  ])("rejects %s", (_, url) => {
    expect(parseGithubTreeUrl(url)).toBeNull();
  });

  const listing = (entries: { path: string; mode: string; type: string; size?: number }[], truncated = false): GithubTree =>
    GithubTree.parse({ sha: "c", truncated, tree: entries.map((e) => ({ sha: "0".repeat(40), ...e })) });
  const limits = { maxFiles: 2, maxTotalBytes: 100 };

  it.each([
    ["a symlink", [{ path: "s/SKILL.md", mode: "120000", type: "blob", size: 3 }], "payload-path-refused"],
    ["a submodule", [{ path: "s/vendor", mode: "160000", type: "commit" }], "payload-path-refused"],
    ["more files than the cap", [1, 2, 3].map((i) => ({ path: `s/${i}`, mode: "100644", type: "blob", size: 1 })), "too-large"],
    ["more bytes than the cap", [{ path: "s/big", mode: "100644", type: "blob", size: 101 }], "too-large"],
    ["an empty directory", [{ path: "other/x", mode: "100644", type: "blob", size: 1 }], "unparsable"],
  ])("refuses a directory holding %s", (_, entries, code) => {
    expect(selectTreeFiles(listing(entries), "s", limits)).toMatchObject({ ok: false, code });
  });

  it("refuses a truncated listing", () => {
    expect(selectTreeFiles(listing([{ path: "s/a", mode: "100644", type: "blob", size: 1 }], true), "s", limits)).toMatchObject({
      ok: false,
      code: "truncated-tree",
    });
  });

  it("keeps only regular files under the directory, with paths relative to it", () => {
    const out = selectTreeFiles(
      listing([
        { path: "s", mode: "040000", type: "tree" },
        { path: "s/SKILL.md", mode: "100644", type: "blob", size: 3 },
        { path: "s/run.sh", mode: "100755", type: "blob", size: 4 },
        { path: "sibling/x", mode: "120000", type: "blob", size: 1 },
      ]),
      "s",
      limits,
    );
    expect(out).toMatchObject({ ok: true, files: [{ path: "SKILL.md" }, { path: "run.sh" }] });
  });
});
