import type { EventLog } from "../../log";
import { createHttpLocalFiles, createOrgAllowlist, type OrgAllowlist, type OrgAllowlistStorage, readOrgConfig } from "../../resolver";
import { ORG_CONFIG_PATH } from "./resolver";

/**
 * The page's org allowlist: the core's (src/resolver/org-allowlist-store.ts), kept in
 * localStorage, its default the bundled sample's config.yaml (`example-org/agent-library`).
 */
export function createPageOrgAllowlist(options: { log: EventLog; storage: OrgAllowlistStorage | null; bundleRoot: string }): OrgAllowlist {
  const bundle = createHttpLocalFiles({ root: options.bundleRoot, fetch: (url, init) => fetch(url, init) });
  return createOrgAllowlist({
    log: options.log,
    storage: options.storage,
    async loadDefault() {
      const read = await readOrgConfig(bundle, ORG_CONFIG_PATH);
      if (!read.ok) throw new Error(read.verdict.reason);
      return read.config.allowed_remote_resources;
    },
  });
}
