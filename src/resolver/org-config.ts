import { decodeUtf8Strict } from "../bytes";
import { refuse, type Verdict } from "../log";
import { parseYamlMapping } from "./content";
import type { LocalFiles } from "./local-files";
import { type OrgConfig, parseOrgConfig } from "./schema";

/** Reads and validates an org config.yaml from local files (the page: the sample bundle's). */
export async function readOrgConfig(
  local: LocalFiles,
  path: string,
): Promise<{ ok: true; config: OrgConfig } | { ok: false; verdict: Verdict }> {
  const bytes = await local.read(path);
  if (bytes === null) return { ok: false, verdict: refuse("fetch-failed", `no org config at ${path}`, "resolver") };
  const parsed = parseYamlMapping(decodeUtf8Strict(bytes) ?? "");
  if (!parsed.ok) return { ok: false, verdict: refuse("invalid-harness", `org config ${path}: ${parsed.reason}`, "resolver") };
  const config = parseOrgConfig(parsed.value);
  return config.ok ? { ok: true, config: config.value } : { ok: false, verdict: config.verdict };
}
