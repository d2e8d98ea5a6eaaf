import { sha256Hex, toHex, utf8 } from "../../bytes";
import { gitBlobSha1 } from "../github";
import { type TreeFile, treeHash } from "../tree-hash";

/**
 * The sample harness tree served at public/samples (the page's default harness) and its
 * recorded remote resources in the --fixtures layout. Single source: `npx tsx
 * src/resolver/testing/write-sample.node.ts` writes it; sample.test.ts checks the files on
 * disk still equal this output. The remote library (`example-org/agent-library`, an
 * allowlist entry the org config trusts) exists only as these recordings.
 */
export const SAMPLE_OWNER = "example-org";
export const SAMPLE_REPO = "agent-library";

export interface SampleTree {
  /** Path (relative to public/samples) → content. */
  files: Map<string, string>;
  commit: string;
  /** The pinned URL of the remote harness in the recordings (page demo: "harness by URL"). */
  remoteHarnessUrl: string;
  /** Pins used, by name, for documentation and tests. */
  pins: Record<string, string>;
}

const LIBRARY: Record<string, string> = {
  "skills/rust-lint/SKILL.md": `---

name: rust-lint
description: Run cargo clippy and report warnings as review comments.
dependencies: ["https://raw.githubusercontent.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/{commit}/policies/rust-sandbox.yaml#sha256={policy}"]
---

# rust-lint

Run \`scripts/check.sh\` in the repository root and summarise each warning.
`,
  "skills/rust-lint/scripts/check.sh": `#!/bin/sh
set -eu
cargo clippy --message-format=short 2>&1 | head -n 200
`,
  "policies/rust-sandbox.yaml": `# A sandbox policy for Rust tooling (recorded sample).
network:
  allow:
    - host: static.crates.io
      methods: [GET]
    - host: index.crates.io
      methods: [GET]
filesystem:
  read_write: [/workspace, /tmp]
`,
  "policies/review.yaml": `network:
  allow:
    - host: api.github.com
      methods: [GET]
filesystem:
  read_only: [/workspace]
`,
  "agents/reviewer.md": `---

name: reviewer
description: Reviews a pull request and writes findings as JSON.
---

You review the change in /workspace. Report each finding with file, line and reason.
`,
  "scripts/review-pre.sh": `#!/bin/sh
# Fetched from the same pinned origin as the base harness (the base: exception).
set -eu
git -C /workspace log -1 --oneline
`,
  "harness/review.yaml": `# A harness published by URL (recorded sample). Relative references resolve against
# the directory holding harness/ on the same origin.
agent: agents/reviewer.md
policy: policies/review.yaml
skills:
  - skills/rust-lint
pre_script: scripts/review-pre.sh
timeout_minutes: 20
allowed_remote_resources:
  - https://raw.githubusercontent.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/
`,
};

const LOCAL: Record<string, string> = {
  ".fullsend/config.yaml": `# Org-level config: the only place new remote origins are trusted.
allowed_remote_resources:
  - https://github.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/
  - https://raw.githubusercontent.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/
`,
  ".fullsend/agents/demo.md": `---

name: demo
description: A demonstration agent that says hello from inside the tab.
---

You are running in a Linux guest inside a browser tab. Use the hello skill, then stop.
`,
  ".fullsend/policies/sandbox.yaml": `network:
  allow: []
filesystem:
  read_write: [/workspace, /tmp]
`,
  ".fullsend/skills/hello/SKILL.md": `---

name: hello
description: Print a greeting from the guest.
---

Run \`scripts/hello.sh\`.
`,
  ".fullsend/skills/hello/scripts/hello.sh": `#!/bin/sh
echo "hello from $(uname -sr)"
`,
  ".fullsend/scripts/pre.sh": `#!/bin/sh
set -eu
mkdir -p /workspace
`,
  ".fullsend/scripts/post.sh": `#!/bin/sh
set -eu
ls -la /workspace
`,
  ".fullsend/scripts/validate.sh": `#!/bin/sh
# The result must be an object with a string "summary" (schemas/result.json). The guest is
# busybox (no JSON parser), so this checks exactly the shape the schema requires.
set -eu
grep -Eq '^[[:space:]]*[{][[:space:]]*"summary"[[:space:]]*:[[:space:]]*"' "$1"
`,
  ".fullsend/schemas/result.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["summary"],
  "properties": { "summary": { "type": "string" } }
}
`,
  ".fullsend/inputs/task.md": `Say hello, then list what the hello skill printed.

The scripted agent in the guest takes its steps from this block (guest/runner/README.md):

\`\`\`tab-agent
context
list .
run sh $TAB_RUN/files/skills-0/scripts/hello.sh
fetch https://api.github.com/zen
done said hello through the hello skill
\`\`\`
`,
  ".fullsend/files/gitconfig": `[user]
	name = Demo Agent
	email = agent@example.invalid
`,
};

async function fakeCommit(): Promise<string> {
  return (await sha256Hex(utf8("linux-in-a-tab sample agent-library"))).slice(0, 40);
}

/** Builds the whole sample tree in memory. */
export async function buildSample(): Promise<SampleTree> {
  const commit = await fakeCommit();
  const raw = `https://raw.githubusercontent.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/${commit}`;
  const tree = `https://github.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/tree/${commit}`;
  const files = new Map<string, string>();
  const pins: Record<string, string> = {};
  pins.policy = await sha256Hex(utf8(LIBRARY["policies/rust-sandbox.yaml"]!));
  const library = new Map<string, string>();
  for (const [path, text] of Object.entries(LIBRARY))
    library.set(path, text.replaceAll("{commit}", commit).replaceAll("{policy}", pins.policy));

  // The recorded GitHub: the trees API listing and each file on raw.githubusercontent.com.
  const entries: { path: string; mode: string; type: string; sha: string; size?: number }[] = [];
  const dirs = new Set<string>();
  for (const [path, text] of [...library].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bytes = utf8(text);
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    entries.push({ path, mode: "100644", type: "blob", sha: await gitBlobSha1(bytes), size: bytes.length });
    files.set(`fixtures/raw.githubusercontent.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/${commit}/${path}`, text);
  }
  for (const dir of dirs) entries.push({ path: dir, mode: "040000", type: "tree", sha: toHex(utf8(dir.padEnd(20, "_").slice(0, 20))) });
  entries.sort((a, b) => (a.path < b.path ? -1 : 1));
  files.set(
    `fixtures/api.github.com/repos/${SAMPLE_OWNER}/${SAMPLE_REPO}/git/trees/${commit}__query=recursive=1`,
    `${JSON.stringify({ sha: commit, url: `https://api.github.com/repos/${SAMPLE_OWNER}/${SAMPLE_REPO}/git/trees/${commit}`, tree: entries, truncated: false }, null, 2)}\n`,
  );

  const skillFiles: TreeFile[] = [];
  for (const [path, text] of library)
    if (path.startsWith("skills/rust-lint/"))
      skillFiles.push({ path: path.slice("skills/rust-lint/".length), sha256: await sha256Hex(utf8(text)) });
  pins.rustLint = await treeHash(skillFiles);
  pins.reviewHarness = await sha256Hex(utf8(library.get("harness/review.yaml")!));

  for (const [path, text] of Object.entries(LOCAL)) files.set(path, text);
  files.set(
    ".fullsend/harness/demo.yaml",
    `# The page's default harness: local files, a pinned remote policy and a pinned remote
# skill (served from the recordings in fixtures/ with --fixtures).
agent: agents/demo.md
policy: ${raw}/policies/rust-sandbox.yaml#sha256=${pins.policy}
skills:
  - skills/hello
  - ${tree}/skills/rust-lint#sha256=${pins.rustLint}
pre_script: scripts/pre.sh
post_script: scripts/post.sh
agent_input: inputs/task.md
host_files:
  - src: files/gitconfig
    dest: /home/agent/.gitconfig
validation_loop:
  script: scripts/validate.sh
  schema: schemas/result.json
  # A literal sh -c command, never a script path; \${HOME} is expanded from the allowlisted environment.
  preflight_check: command -v curl >/dev/null && test -d "\${HOME}"
timeout_minutes: 15
allowed_remote_resources:
  - https://github.com/${SAMPLE_OWNER}/${SAMPLE_REPO}/
`,
  );
  files.set(
    ".fullsend/harness/with-base.yaml",
    `# base: composition (scripts may come from a pinned base): inherits the URL-published review harness; its
# scripts are fetched from the same pinned origin, cached, and rewritten to cache paths.
base: ${raw}/harness/review.yaml#sha256=${pins.reviewHarness}
agent: agents/demo.md
`,
  );
  files.set(
    ".fullsend/harness/refused.yaml",
    `# Every line here is refused or flagged, for the Resolver panel's demo.
agent: ${raw}/agents/reviewer.md
policy: ../../outside.yaml
skills:
  - https://github.com/someone-else/skills/tree/${commit}/x#sha256=${"0".repeat(64)}
pre_script: ${raw}/scripts/review-pre.sh#sha256=${"1".repeat(64)}
validation_loop:
  preflight_check: scripts/common-preflight.sh
`,
  );
  const listed = [...files.keys()].sort();
  files.set("index.json", `${JSON.stringify({ files: listed.map((p) => `/${p}`) }, null, 2)}\n`);
  return { files, commit, remoteHarnessUrl: `${raw}/harness/review.yaml#sha256=${pins.reviewHarness}`, pins };
}
