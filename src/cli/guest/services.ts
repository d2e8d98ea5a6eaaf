import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createCas, createMemoryStore } from "../../cas";
import { createMemoryKeyStore, createVaultService, DEMO_VAULT_ID, seedDemoVault, type VaultService } from "../../kms";
import type { EventLog } from "../../log";
import { createModelEndpoint } from "../../model";
import { systemTimers } from "../../platform";
import type { Policy } from "../../policy";
import type { OwnHandlers } from "../../proxy";
import { createRuntimeFetchEndpoint, type RuntimeFetchEndpoint } from "../../resolver";
import { AgentStep, MODEL_VERBS } from "../../runner";

/**
 * The endpoints the headless guest finds on its proxy, the same core handlers the page serves
 * (src/page/services/index.ts): the vault (`/v0/vault/grant|pull|push`, src/kms) over a memory key
 * store and a memory cache, the run-time fetch endpoint (`/v0/resolve`, src/resolver) and the
 * model endpoint (`/v0/model`, src/model). Nothing arms the last two here, exactly as in the
 * page outside an agent run: the guest gets their refusals. A guest's write grant asks the
 * operator in the page; headless there is no operator, so it is refused as when nobody answers.
 */
export interface NodeGuestServices {
  vault: VaultService;
  runtimeFetch: RuntimeFetchEndpoint;
  handlers: OwnHandlers;
}

/** The guest's vault client, which the page too puts into the share (src/page/features/vault/mount.ts). */
export const SGIT_SCRIPT = fileURLToPath(new URL("../../../guest/sgit", import.meta.url));
export const SGIT_SHARE_PATH = "bin/sgit";

/**
 * The demo vault seeded as the page's vault feature seeds it, so `sgit pull demo-notes` finds
 * its files. Seeding is the host's own write, checked against a policy naming the vault; the
 * lesson's policy is not widened: a lesson that does not name the vault still meets its refusal.
 */
export async function seedNodeDemoVault(services: NodeGuestServices, policy: Policy): Promise<void> {
  const naming = policy.vaults.includes(DEMO_VAULT_ID) ? policy : { ...policy, vaults: [...policy.vaults, DEMO_VAULT_ID] };
  const verdict = await seedDemoVault(services.vault, naming);
  if (verdict && !verdict.allowed) throw new Error(`could not seed the demo vault: ${verdict.code}: ${verdict.reason}`);
}

const AGENT_RULES = fileURLToPath(new URL("../../../guest/runner/agent-rules.md", import.meta.url));

export function createNodeGuestServices(log: EventLog): NodeGuestServices {
  const cas = createCas({ store: createMemoryStore(), log });
  const vault = createVaultService({ keys: createMemoryKeyStore(), cas, log, timers: systemTimers });
  const runtimeFetch = createRuntimeFetchEndpoint();
  const model = createModelEndpoint({
    verbs: MODEL_VERBS,
    rules: readFileSync(AGENT_RULES, "utf8"),
    stepSchema: AgentStep,
    timers: systemTimers,
  });
  return { vault, runtimeFetch, handlers: { ...vault.handlers, ...model.handlers, ...runtimeFetch.handlers } };
}
