import { z } from "zod";
import type { VerbUsage } from "../prompt";

/**
 * A stand-in for the runner's verbs and `AgentStep` rule (src/runner/verbs.ts), which the
 * core may not import; src/page/model-verbs.test.ts checks the real ones.
 */
export const TEST_VERBS: readonly VerbUsage[] = [
  { verb: "list", usage: "list [PATH] — list a directory" },
  { verb: "read", usage: "read PATH — read a file" },
  { verb: "post", usage: "post URL — fetch URL through the proxy by value" },
  { verb: "connect", usage: "connect ADDR PORT — a raw TCP connect()" },
  { verb: "done", usage: "done SUMMARY — finish the run" },
];

export const STEP_SCHEMA = z
  .string()
  .max(4000)
  .regex(/^(?:list|read|post|connect|done|model)(?: [^\r\n\u0000]*)?$/, "must be VERB [ARGUMENT] on one line with a known verb");
