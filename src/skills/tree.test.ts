import { describe, expect, it } from "vitest";
import { candidateRoots, judgeListing, MAX_FILE_BYTES, MAX_SCRIPTS, TreeListing } from "./index";

// What a skill may contain is enforced on its payload, never assumed of its source
// (docs/decisions/0003-skills-from-a-public-registry.md): candidate roots, the path whitelist, and the caps, all judged on the listing.
type Entry = { path: string; mode?: string; type?: "blob" | "tree" | "commit"; size?: number };

function listing(entries: Entry[], truncated = false): TreeListing {
  return {
    sha: "t".repeat(40),
    truncated,
    tree: entries.map((e) => ({
      path: e.path,
      mode: e.mode ?? (e.type === "tree" ? "040000" : e.type === "commit" ? "160000" : "100644"),
      type: e.type ?? "blob",
      sha: "b".repeat(40),
      ...(e.type === "tree" || e.type === "commit" ? {} : { size: e.size ?? 10 }),
    })),
  };
}

const skill = (root: string, more: Entry[] = []) => [{ path: `${root}/SKILL.md` }, ...more];

describe("a truncated listing refuses", () => {
  it("truncated: true is truncated-tree even when the skill is visible", () => {
    const judged = judgeListing(listing(skill("skills/pdf"), true), "repo", "pdf");
    expect(judged.ok ? null : judged.verdict.code).toBe("truncated-tree");
  });

  it("a listing without the truncated flag does not parse", () => {
    expect(TreeListing.safeParse({ sha: "x", tree: [] }).success).toBe(false);
  });
});

describe("candidate roots are byte-equal to the slug", () => {
  it.each([
    ["a directory whose final segment is the slug", skill("skills/pdf"), "repo", "pdf", ["skills/pdf"]],
    ["a top-level directory named the slug", skill("pdf"), "repo", "pdf", ["pdf"]],
    ["case differs: no candidate", skill("skills/PDF"), "repo", "pdf", []],
    ["a directory that only starts with the slug", skill("skills/pdf-extra"), "repo", "pdf", []],
    ["a directory that only ends with the slug", skill("skills/my-pdf"), "repo", "pdf", []],
    ["a SKILL.md in another case is not a SKILL.md", [{ path: "skills/pdf/skill.md" }], "repo", "pdf", []],
    ["the repository root when the repo name is the slug", [{ path: "SKILL.md" }], "pdf", "pdf", [""]],
    ["not the repository root when the repo name differs in case", [{ path: "SKILL.md" }], "PDF", "pdf", []],
    ["not the repository root when the repo name differs", [{ path: "SKILL.md" }], "repo", "pdf", []],
    ["two directories named the slug", [...skill("a/pdf"), ...skill("b/pdf")], "repo", "pdf", ["a/pdf", "b/pdf"]],
    ["root and a directory", [{ path: "SKILL.md" }, ...skill("pdf")], "pdf", "pdf", ["", "pdf"]],
  ])("%s", (_name, entries, repo, slug, expected) => {
    expect(candidateRoots(listing(entries), repo, slug)).toEqual(expected);
  });

  it("zero candidates is no-candidate", () => {
    const judged = judgeListing(listing(skill("skills/Pdf")), "repo", "pdf");
    expect(judged.ok ? null : judged.verdict.code).toBe("no-candidate");
  });

  it("several candidates is many-candidates, naming them", () => {
    const judged = judgeListing(listing([...skill("a/pdf"), ...skill("b/pdf")]), "repo", "pdf");
    expect(judged.ok ? null : judged.verdict).toMatchObject({
      code: "many-candidates",
      reason: expect.stringContaining('"a/pdf", "b/pdf"'),
    });
  });

  it("sibling skills and files outside the candidate's subtree are not judged", () => {
    const judged = judgeListing(
      listing([
        { path: "README.md" },
        { path: "skills/other/references/x.md" },
        ...skill("skills/pdf"),
        { path: "skills/pdf-extra/assets/a.png" },
      ]),
      "repo",
      "pdf",
    );
    expect(judged.ok && judged.inventory.root).toBe("skills/pdf");
  });

  it("a root skill judges the whole repository", () => {
    const judged = judgeListing(listing([{ path: "SKILL.md" }, { path: "README.md" }]), "pdf", "pdf");
    expect(judged.ok ? null : judged.verdict).toMatchObject({
      code: "payload-path-refused",
      reason: expect.stringContaining('"README.md" (file)'),
    });
  });
});

describe("the whitelist: root SKILL.md and regular files directly under scripts/", () => {
  it("SKILL.md plus scripts of mode 100644 and 100755 are admitted", () => {
    const judged = judgeListing(
      listing(
        skill("s/pdf", [
          { path: "s/pdf/scripts", type: "tree" },
          { path: "s/pdf/scripts/extract.py", mode: "100755" },
          { path: "s/pdf/scripts/README.txt" },
          { path: "s/pdf/scripts/a_b-c.d.sh" },
        ]),
      ),
      "repo",
      "pdf",
    );
    expect(judged.ok && judged.inventory.scripts.map((s) => s.relative)).toEqual([
      "scripts/extract.py",
      "scripts/README.txt",
      "scripts/a_b-c.d.sh",
    ]);
    expect(judged.ok && judged.inventory.skillMd.path).toBe("s/pdf/SKILL.md");
  });

  it.each([
    [
      "a references/ file",
      [{ path: "p/references", type: "tree" }, { path: "p/references/REF.md" }],
      ['"references" (directory)', '"references/REF.md" (file)'],
    ],
    ["an assets/ file", [{ path: "p/assets/logo.png" }], ['"assets/logo.png" (file)']],
    ["another file at the root", [{ path: "p/README.md" }], ['"README.md" (file)']],
    [
      "a nested directory under scripts/",
      [{ path: "p/scripts/lib", type: "tree" }, { path: "p/scripts/lib/x.py" }],
      ['"scripts/lib" (directory)', '"scripts/lib/x.py" (file)'],
    ],
    ["a symlink under scripts/", [{ path: "p/scripts/run.sh", mode: "120000" }], ['"scripts/run.sh" (symlink)']],
    ["a symlinked SKILL.md", [], ['"SKILL.md" (symlink)']],
    ["a submodule", [{ path: "p/vendor", type: "commit" }], ['"vendor" (submodule)']],
    ["a submodule under scripts/", [{ path: "p/scripts/tool", type: "commit" }], ['"scripts/tool" (submodule)']],
    ["a script with a leading dot", [{ path: "p/scripts/.hidden" }], ['"scripts/.hidden" (file)']],
    ["a script with a space", [{ path: "p/scripts/run me.sh" }], ['"scripts/run me.sh" (file)']],
    ["a script with a non-ASCII name", [{ path: "p/scripts/rün.sh" }], ['"scripts/rün.sh" (file)']],
    ["a script with an escape in its name", [{ path: "p/scripts/x\u001b[2J.sh" }], ['"scripts/x.sh" (file)']],
    ["scripts as a file, not a directory", [{ path: "p/scripts" }], ['"scripts" (file)']],
    ["a file of an unknown mode", [{ path: "p/scripts/x.sh", mode: "100664" }], ['"scripts/x.sh" (mode 100664)']],
  ])("%s refuses the whole acquisition as payload-path-refused", (name, extra, named) => {
    const skillMd: Entry = name === "a symlinked SKILL.md" ? { path: "p/SKILL.md", mode: "120000" } : { path: "p/SKILL.md" };
    const judged = judgeListing(listing([skillMd, ...(extra as Entry[])]), "repo", "p");
    expect(judged.ok).toBe(false);
    if (judged.ok) return;
    expect(judged.verdict.code).toBe("payload-path-refused");
    expect(judged.verdict.reason).toContain(`${named.length} paths outside the whitelist`);
    for (const path of named) expect(judged.verdict.reason).toContain(path);
  });

  it("a refusal names at most 20 paths and counts the rest", () => {
    const extra = Array.from({ length: 25 }, (_, i) => ({ path: `p/assets/${i}.png` }));
    const judged = judgeListing(listing([{ path: "p/SKILL.md" }, ...extra]), "repo", "p");
    expect(judged.ok ? null : judged.verdict.reason).toMatch(/^25 paths outside the whitelist .* and 5 more$/);
  });
});

describe("caps are decided on the listing", () => {
  const scripts = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `p/scripts/s${i}.sh` }));

  it(`${MAX_SCRIPTS} scripts are admitted`, () => {
    const judged = judgeListing(listing([{ path: "p/SKILL.md" }, ...scripts(MAX_SCRIPTS)]), "repo", "p");
    expect(judged.ok && judged.inventory.scripts).toHaveLength(16);
  });

  it(`${MAX_SCRIPTS + 1} scripts refuse as too-large`, () => {
    const judged = judgeListing(listing([{ path: "p/SKILL.md" }, ...scripts(MAX_SCRIPTS + 1)]), "repo", "p");
    expect(judged.ok ? null : judged.verdict).toMatchObject({ code: "too-large", reason: expect.stringContaining("17 scripts listed") });
  });

  it("a file listed larger than 256 KiB refuses as too-large", () => {
    const judged = judgeListing(listing([{ path: "p/SKILL.md", size: MAX_FILE_BYTES + 1 }]), "repo", "p");
    expect(judged.ok ? null : judged.verdict.code).toBe("too-large");
  });

  it("a file listed at exactly 256 KiB is admitted", () => {
    const judged = judgeListing(listing([{ path: "p/SKILL.md", size: MAX_FILE_BYTES }]), "repo", "p");
    expect(judged.ok).toBe(true);
  });
});
