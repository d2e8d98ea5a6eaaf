import agentRules from "../../../guest/runner/agent-rules.md?raw";
import { createModelEndpoint, type ModelEndpoint } from "../../model";
import { systemTimers } from "../../platform";
import { AgentStep, MODEL_VERBS } from "../../runner";

/**
 * The page's `POST /v0/model` endpoint, built once by the page's services: the proxy serves
 * its handlers and the Model section arms it, so both hold the same instance. The key lives
 * only in the armed run, in memory.
 */
export function createPageModelEndpoint(): ModelEndpoint {
  return createModelEndpoint({
    verbs: MODEL_VERBS,
    rules: agentRules,
    stepSchema: AgentStep,
    timers: systemTimers,
  });
}
