import { refuse, type Verdict } from "../log";
import { checkText, judgeSubtree, type TreeListing } from "../skills";

/** One file of a skill directory as the whitelist judges it: its path under the skill root and size. */
export interface SkillFile {
  path: string;
  size: number;
}

/**
 * A skill named in a harness is held to the same file rules as a skill acquired from a
 * registry (src/skills, "instructions-only is enforced on the payload"): only the root
 * `SKILL.md` and regular files directly under `scripts/` (printable names, no leading dot),
 * at most that many scripts and that many bytes per file. Any other path — a nested
 * directory under `scripts/`, a dotfile, `references/`, `assets/` — refuses the whole skill
 * (`payload-path-refused`), naming the paths; nothing reaches the guest silently. Judged on
 * the listing, so a remote skill refuses before a single file is fetched.
 */
export function judgeSkillFiles(files: readonly SkillFile[]): Verdict | null {
  const tree: TreeListing["tree"] = [];
  const dirs = new Set<string>();
  for (const file of files) {
    const parts = file.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    tree.push({ path: file.path, mode: "100644", type: "blob", sha: "", size: file.size });
  }
  for (const dir of dirs) tree.push({ path: dir, mode: "040000", type: "tree", sha: "" });
  const judged = judgeSubtree({ sha: "", truncated: false, tree }, "");
  if (judged.ok) return null;
  if (judged.verdict.code === "no-candidate") return refuse("unparsable", "a skill directory must hold SKILL.md at its root", "resolver");
  return refuse(judged.verdict.code, `the skill file rules: ${judged.verdict.reason}`, "resolver");
}

/** The text rules registry skills pass: `SKILL.md` non-empty UTF-8, every script UTF-8. */
export function checkSkillText(files: ReadonlyMap<string, Uint8Array>): Verdict | null {
  for (const [path, bytes] of files) {
    const bad = checkText(bytes, path);
    if (bad) return refuse(bad.code, bad.reason, "resolver");
  }
  return null;
}
