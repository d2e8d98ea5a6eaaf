import { z } from "zod";
import type { VerbUsage } from "../model";

/** The scripted agent's verbs (guest/runner/tab-agent). */
export const AGENT_VERBS = [
  "context",
  "list",
  "read",
  "write",
  "run",
  "fetch",
  "post",
  "connect",
  "skill",
  "skill-script",
  "done",
  "model",
] as const;

/** One agent step: a known verb and an argument on one line. */
export const AgentStep = z
  .string()
  .max(4000)
  .regex(new RegExp(`^(?:${AGENT_VERBS.join("|")})(?: [^\\r\\n\\u0000]*)?$`), "must be VERB [ARGUMENT] on one line with a known verb");

/**
 * The verbs a model may answer with, explained for its system prompt: every verb of the
 * scripted agent (guest/runner/tab-agent) except `model` itself, which starts the loop.
 */

type ModelVerb = Exclude<(typeof AGENT_VERBS)[number], "model">;

const USAGE: Readonly<Record<ModelVerb, string>> = {
  context: "context — print the platform rules and the caller repository's notes (subordinate context)",
  list: "list [PATH] — list a directory of the workspace (default .)",
  read: "read PATH — print a file (its first lines) with its size and sha256",
  write: "write PATH TEXT — write one line of TEXT to a file in the workspace or /tmp",
  run: "run COMMAND — run a shell command in the workspace (busybox sh; its first output lines are shown)",
  fetch: "fetch URL — GET an https URL through the proxy (HTTPS_PROXY); the proxy's verdict is shown",
  post: "post URL — GET a URL by value through the proxy (POST /v0/fetch); the proxy's verdict and the body's start are shown",
  connect: "connect ADDR PORT — a raw TCP connect() that bypasses the proxy (the kernel is expected to refuse it)",
  skill: "skill HANDLE — read a skill the operator attached to this run",
  "skill-script": "skill-script HANDLE NAME [ARGS] — run one of an attached skill's scripts (only when the operator allowed them)",
  done: "done SUMMARY — finish: SUMMARY (one line) is written to result.json",
};

export const MODEL_VERBS: readonly VerbUsage[] = AGENT_VERBS.filter((verb): verb is ModelVerb => verb !== "model").map((verb) => ({
  verb,
  usage: USAGE[verb],
}));
