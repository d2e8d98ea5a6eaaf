import type { EventLog } from "../../log";
import { createHttpLocalFiles, createOrgAllowlist, type OrgAllowlist, type OrgAllowlistStorage, readOrgConfig } from "../../resolver";
import { type DeploymentConfig, defaultAllowlist } from "./deployment-config";

export { readDeploymentConfig } from "./deployment-config";

import { ORG_CONFIG_PATH } from "./resolver";

/**
 * The page's org allowlist: the core's (src/resolver/org-allowlist-store.ts), kept in
 * localStorage, its default the deployment's (`tab.config.json`: its `orgAllowlist`, else the
 * bundled sample's config.yaml, `example-org/agent-library`, then its `lessonOrigins`). A reader's
 * saved list is theirs: the default applies until they change it, and again after Reset.
 */
export function createPageOrgAllowlist(options: {
  log: EventLog;
  storage: OrgAllowlistStorage | null;
  bundleRoot: string;
  deployment: Promise<DeploymentConfig | null>;
}): OrgAllowlist {
  const bundle = createHttpLocalFiles({ root: options.bundleRoot, fetch: (url, init) => fetch(url, init) });
  return createOrgAllowlist({
    log: options.log,
    storage: options.storage,
    async loadDefault() {
      const deployment = await options.deployment;
      if (deployment?.orgAllowlist) return defaultAllowlist(deployment, []);
      const read = await readOrgConfig(bundle, ORG_CONFIG_PATH);
      if (!read.ok) throw new Error(read.verdict.reason);
      return defaultAllowlist(deployment, read.config.allowed_remote_resources);
    },
  });
}
