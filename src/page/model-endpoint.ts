import agentRules from "../../guest/runner/agent-rules.md?raw";
import type { EventLog } from "../log";
import { createModelEndpoint, type ModelEndpoint } from "../model";
import { MODEL_VERBS } from "./model-verbs";
import { AgentStep } from "./runner-plan";

const endpoints = new WeakMap<EventLog, ModelEndpoint>();

/**
 * The page's one `POST /v0/model` endpoint per log: the proxy's handlers (`modelHandlers(log)`)
 * and the Model section (`mount`) get the same instance whichever asks first, so the section
 * arms the endpoint the proxy serves. The key lives only in the armed run, in memory.
 */
export function pageModelEndpoint(log: EventLog): ModelEndpoint {
  let endpoint = endpoints.get(log);
  if (!endpoint) {
    endpoint = createModelEndpoint({
      verbs: MODEL_VERBS,
      rules: agentRules,
      stepSchema: AgentStep,
      timers: { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: (handle) => clearTimeout(handle as number) },
    });
    endpoints.set(log, endpoint);
  }
  return endpoint;
}
