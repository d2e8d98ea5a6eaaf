import { z } from "zod";
import { sha256Hex } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import { type AcquireDeps, type Acquired, admit, checkText } from "./admit";
import { fetchCapped, parseJsonBytes } from "./fetch";
import type { WellKnownSkillRef } from "./id";
import { logStep } from "./steps";
import { MAX_FILE_BYTES } from "./tree";

/**
 * Acquisition from a `.well-known/agent-skills/index.json` entry (one of the two pinned addresses; docs/decisions/0003-skills-from-a-public-registry.md):
 * the entry's mandatory `sha256:` digest is verified fail-closed against the fetched bytes. Only
 * `skill-md` entries are admitted: an archive carries an inventory the whitelist never judged.
 */

/** `$schema` is a version tag compared as a string; nothing fetches it (it has no DNS record). */
export const KNOWN_INDEX_SCHEMAS = ["https://schemas.agentskills.io/discovery/0.2.0/schema.json"] as const;
const MAX_INDEX_BYTES = 1024 * 1024;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

const Index = z.object({ $schema: z.string(), skills: z.array(z.object({ name: z.string() }).passthrough()) });
const Entry = z.object({ name: z.string(), type: z.string(), url: z.string(), digest: z.string().regex(DIGEST) });

export async function acquireFromWellKnown(ref: WellKnownSkillRef, deps: AcquireDeps): Promise<Acquired> {
  const { id, indexUrl, name } = ref;
  const refused = (step: "list" | "fetch" | "verify", verdict: Verdict, url?: string): Acquired => {
    logStep(deps.log, step, { id, detail: "acquisition refused", ...(url ? { url } : {}) }, verdict);
    return { ok: false, verdict };
  };

  const indexBytes = await fetchCapped(deps.fetch, indexUrl, MAX_INDEX_BYTES, { accept: "application/json" });
  if (!indexBytes.ok) return refused("list", indexBytes.verdict, indexUrl);
  // A 200 HTML page stands in for a missing index on real hosts: only the parse makes a hit.
  const index = Index.safeParse(parseJsonBytes(indexBytes.bytes));
  if (!index.success)
    return refused("list", refuse("unparsable-index", `${indexUrl} did not parse as an agent-skills index`, "skills"), indexUrl);
  if (!(KNOWN_INDEX_SCHEMAS as readonly string[]).includes(index.data.$schema)) {
    return refused("list", refuse("unparsable-index", "the index's $schema is not one this client knows", "skills"), indexUrl);
  }
  const matches = index.data.skills.filter((s) => s.name === name);
  if (matches.length === 0)
    return refused("list", refuse("no-candidate", `the index has no entry named ${JSON.stringify(name)}`, "skills"), indexUrl);
  if (matches.length > 1) {
    return refused(
      "list",
      refuse("many-candidates", `the index has ${matches.length} entries named ${JSON.stringify(name)}`, "skills"),
      indexUrl,
    );
  }
  const entry = Entry.safeParse(matches[0]);
  if (!entry.success) {
    return refused(
      "list",
      refuse("unparsable-index", `the entry ${JSON.stringify(name)} lacks a type, url or sha256:<64 hex> digest`, "skills"),
      indexUrl,
    );
  }
  if (entry.data.type !== "skill-md") {
    return refused(
      "list",
      refuse(
        "payload-path-refused",
        `the entry is of type ${JSON.stringify(entry.data.type.slice(0, 40))}; only skill-md is admitted`,
        "skills",
      ),
      indexUrl,
    );
  }
  const skillUrl = sameOriginUrl(entry.data.url, indexUrl);
  if (!skillUrl.ok) return refused("list", skillUrl.verdict, indexUrl);
  logStep(
    deps.log,
    "list",
    { id, url: indexUrl, detail: `entry ${JSON.stringify(name)} with digest ${entry.data.digest}` },
    allow("index parsed", "skills"),
  );

  const got = await fetchCapped(deps.fetch, skillUrl.value, MAX_FILE_BYTES);
  if (!got.ok) return refused("fetch", got.verdict, skillUrl.value);
  const sha256 = await sha256Hex(got.bytes);
  logStep(
    deps.log,
    "fetch",
    { id, url: skillUrl.value, sha256, detail: `SKILL.md: ${got.bytes.byteLength} bytes` },
    allow("fetched", "skills"),
  );
  if (`sha256:${sha256}` !== entry.data.digest) {
    return refused(
      "verify",
      refuse("hash-mismatch", `SKILL.md hashes to sha256:${sha256}, the index says ${entry.data.digest}`, "skills"),
      skillUrl.value,
    );
  }
  const bad = checkText(got.bytes, "SKILL.md");
  if (bad) return refused("verify", bad, skillUrl.value);
  logStep(deps.log, "verify", { id, sha256, detail: "digest verified" }, allow("the bytes match the index digest", "skills"));

  return admit(
    {
      discoveryId: id,
      method: "well-known-digest",
      sourceUrl: skillUrl.value,
      commitSha: null,
      indexDigest: entry.data.digest,
      pin: `${id}@${entry.data.digest}`,
      resolvedAt: null,
      skillMd: got.bytes,
      scripts: [],
    },
    deps,
  );
}

/**
 * The entry's URL, resolved against the index, must stay https on the index's own origin: the
 * digest makes the bytes safe to use, but the host we send a request to is still ours to choose.
 */
function sameOriginUrl(raw: string, indexUrl: string): { ok: true; value: string } | { ok: false; verdict: Verdict } {
  let url: URL;
  try {
    url = new URL(raw, indexUrl);
  } catch {
    return { ok: false, verdict: refuse("unparsable-index", "the entry's url is not a URL", "skills") };
  }
  if (url.protocol !== "https:") return { ok: false, verdict: refuse("not-https", "the entry's url is not https", "skills") };
  if (url.origin !== new URL(indexUrl).origin || url.username || url.password) {
    return { ok: false, verdict: refuse("host-not-allowed", "the entry's url leaves the index's origin", "skills") };
  }
  url.hash = "";
  return { ok: true, value: url.href };
}
