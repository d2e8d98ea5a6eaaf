import { z } from "zod";
import type { EventLog } from "../../log";
import { privateNameReason } from "../../policy";
import { type FetchLike, OrgAllowlistEntries } from "../../resolver";

/** The file a deployment serves beside the page (README, "Publishing"); missing means the defaults. */
export const DEPLOYMENT_CONFIG_FILE = "tab.config.json";
/** A configuration is a few lines: anything larger is not one. */
const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * A deployment's own settings, read once at start. Every entry is an org allowlist prefix
 * (https, a host name, a directory): the same checks as the Resolver panel's, so a deployment
 * names origins and never lifts the guarantees (docs/decisions/0028: a lesson from a trusted
 * origin with a setup or a policy still asks on the card).
 */
/** Org allowlist prefixes whose host is public: a private name (localhost, *.local, a single label) is refused before any fetch, so it never serves a lesson. */
const PublicPrefixes = OrgAllowlistEntries.superRefine((entries, ctx) => {
  entries.forEach((entry, index) => {
    const reason = privateNameReason(new URL(entry).hostname);
    if (reason !== null) ctx.addIssue({ code: "custom", path: [index], message: `${reason}: the page never fetches from it` });
  });
});

export const DeploymentConfig = z
  .object({
    version: z.literal(1),
    /** The default org allowlist every new reader starts with; absent: the bundled sample's. */
    orgAllowlist: PublicPrefixes.optional(),
    /** Where this deployment's docs author publishes pinned lessons: added to the default allowlist. */
    lessonOrigins: PublicPrefixes.optional(),
  })
  .strict();
export type DeploymentConfig = z.infer<typeof DeploymentConfig>;

export type DeploymentConfigRead = { config: DeploymentConfig | null; problem: string | null };

/** Reads the file's text (null: not served) into a config; a bad file is said and ignored, never half used. */
export function parseDeploymentConfig(text: string | null): DeploymentConfigRead {
  if (text === null) return { config: null, problem: null };
  if (text.length > MAX_CONFIG_BYTES)
    return { config: null, problem: `${DEPLOYMENT_CONFIG_FILE} is larger than ${MAX_CONFIG_BYTES} bytes; the defaults are used` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { config: null, problem: `${DEPLOYMENT_CONFIG_FILE} is not JSON; the defaults are used` };
  }
  const parsed = DeploymentConfig.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    return { config: null, problem: `${DEPLOYMENT_CONFIG_FILE} is not valid (${issues}); the defaults are used` };
  }
  return { config: parsed.data, problem: null };
}

/** The default org allowlist: the deployment's (else `bundled`), then its lesson origins, each once. */
export function defaultAllowlist(config: DeploymentConfig | null, bundled: readonly string[]): string[] {
  const all = [...(config?.orgAllowlist ?? bundled), ...(config?.lessonOrigins ?? [])];
  return [...new Set(all)];
}

/** Fetches the file beside the page once; a 404 (or no answer) means none. */
export async function readDeploymentConfig(o: { pageHref: string; fetch: FetchLike; log: EventLog }): Promise<DeploymentConfig | null> {
  let text: string | null = null;
  try {
    const response = await o.fetch(new URL(DEPLOYMENT_CONFIG_FILE, o.pageHref).href, { cache: "no-cache", redirect: "error" });
    if (response.ok) text = await response.text();
  } catch {
    // Not served (or a static host that refuses it): the defaults.
  }
  const read = parseDeploymentConfig(text);
  if (read.problem !== null) o.log.append({ kind: "note", level: "warning", source: "page", message: read.problem });
  return read.config;
}
