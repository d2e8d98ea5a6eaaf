import { acquireFromCommit } from "./acquire-git";
import { acquireFromWellKnown } from "./acquire-well-known";
import type { AcquireDeps, Acquired } from "./admit";
import { parseSkillRef } from "./id";
import { resolveSkillAddress } from "./resolve";
import { logStep } from "./steps";

/**
 * `acquire_skill` (docs/decisions/0003-skills-from-a-public-registry.md): resolve a discovery id to a pinned address, fetch only
 * that address, apply the complete-payload refusal, write the admitted text behind a handle and
 * return the handle record — never the text.
 *
 * `ref` is `owner/repo/slug` (resolved to the default branch head), `owner/repo/slug@<sha>`
 * (pinned as given) or `https://host/.well-known/agent-skills/index.json#name`.
 */
export async function acquireSkill(ref: string, deps: AcquireDeps): Promise<Acquired> {
  const parsed = parseSkillRef(ref);
  if (!parsed.ok) {
    logStep(deps.log, "resolve", { id: ref.slice(0, 200), detail: "not an acquirable address" }, parsed.verdict);
    return { ok: false, verdict: parsed.verdict };
  }
  if (parsed.value.kind === "well-known") return acquireFromWellKnown(parsed.value, deps);
  const resolved = await resolveSkillAddress(parsed.value, deps);
  if (!resolved.ok) return resolved;
  return acquireFromCommit(resolved.address, deps);
}
