import { createHash } from "node:crypto";
import type { BrowserContext } from "@playwright/test";

/**
 * A harness library as GitHub serves it, for Playwright routing: files on
 * raw.githubusercontent.com at a pinned commit, and the commit's trees API listing on
 * api.github.com (both answer CORS as the real hosts do). Pins are computed here with Node's
 * crypto, independently of the page's code: a harness pin is the file's sha256, a skill
 * directory's is the sha256 of its manifest (`path:sha256` lines, sorted, final newline).
 */
export interface RoutedLibrary {
  owner: string;
  repo: string;
  commit: string;
  /** The pinned harness URL (`https://raw.githubusercontent.com/…/harness/review.yaml#sha256=…`). */
  harnessUrl: string;
  /** The two prefixes an org must allow for it: the raw files and the github.com tree URLs. */
  prefixes: [raw: string, github: string];
  skillTreeHash: string;
  /** Every request the routes answered, in order. */
  served: string[];
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const gitBlobSha1 = (text: string) => {
  const bytes = Buffer.from(text);
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest("hex");
};

export async function routeGithubLibrary(context: BrowserContext, owner = "acme-labs", repo = "agent-harnesses"): Promise<RoutedLibrary> {
  const commit = "5d1e0c3b9a7f24e8c6b1d0a9f8e7c6b5a4d3c2b1";
  const skill: Record<string, string> = {
    "SKILL.md": "---\nname: lint\ndescription: Run the linter and report each warning.\n---\n\n# lint\n\nRun `scripts/check.sh`.\n",
    "scripts/check.sh": "#!/bin/sh\nset -eu\necho lint ok\n",
  };
  const manifest = `${Object.entries(skill)
    .map(([path, text]) => `${path}:${sha256(text)}`)
    .sort()
    .join("\n")}\n`;
  const skillTreeHash = sha256(manifest);
  const files: Record<string, string> = {
    "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews a change.\n---\n\nReview the change in /workspace.\n",
    ...Object.fromEntries(Object.entries(skill).map(([path, text]) => [`skills/lint/${path}`, text])),
  };
  files["harness/review.yaml"] = [
    "# A harness from a real-looking library: raw.githubusercontent.com at a pinned commit.",
    "agent: agents/reviewer.md",
    "skills:",
    `  - https://github.com/${owner}/${repo}/tree/${commit}/skills/lint#sha256=${skillTreeHash}`,
    "",
  ].join("\n");
  const rawBase = `https://raw.githubusercontent.com/${owner}/${repo}/${commit}/`;
  const listing = {
    sha: commit,
    truncated: false,
    tree: [
      ...["agents", "harness", "skills", "skills/lint", "skills/lint/scripts"].map((path) => ({
        path,
        mode: "040000",
        type: "tree",
        sha: sha256(path).slice(0, 40),
      })),
      ...Object.entries(files).map(([path, text]) => ({
        path,
        mode: "100644",
        type: "blob",
        sha: gitBlobSha1(text),
        size: Buffer.byteLength(text),
      })),
    ],
  };
  const served: string[] = [];
  const cors = { "access-control-allow-origin": "*" };
  await context.route(`${rawBase}**`, (route) => {
    const path = decodeURIComponent(new URL(route.request().url()).pathname.slice(`/${owner}/${repo}/${commit}/`.length));
    const text = files[path];
    served.push(route.request().url());
    return text === undefined
      ? route.fulfill({ status: 404, headers: cors, body: "404: Not Found" })
      : route.fulfill({ status: 200, headers: { ...cors, "content-type": "text/plain; charset=utf-8" }, body: text });
  });
  await context.route(`https://api.github.com/repos/${owner}/${repo}/git/trees/${commit}?recursive=1`, (route) => {
    served.push(route.request().url());
    return route.fulfill({ status: 200, headers: { ...cors, "content-type": "application/json" }, body: JSON.stringify(listing) });
  });
  return {
    owner,
    repo,
    commit,
    harnessUrl: `${rawBase}harness/review.yaml#sha256=${sha256(files["harness/review.yaml"])}`,
    prefixes: [`https://raw.githubusercontent.com/${owner}/${repo}/`, `https://github.com/${owner}/${repo}/`],
    skillTreeHash,
    served,
  };
}
