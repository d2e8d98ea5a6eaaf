import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createCas, createMemoryStore } from "../../cas";
import { createMemoryKeyStore, createVaultService, type VaultService } from "../../kms";
import type { EventLog } from "../../log";
import { createModelEndpoint } from "../../model";
import { systemTimers } from "../../platform";
import type { OwnHandlers } from "../../proxy";
import { createRuntimeFetchEndpoint, type RuntimeFetchEndpoint } from "../../resolver";
import { AgentStep, MODEL_VERBS } from "../../runner";

/**
 * The endpoints the headless guest finds on its proxy, the same core handlers the page serves
 * (src/page/services.ts): the vault (`/v0/vault/grant|pull|push`, src/kms) over a memory key
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
