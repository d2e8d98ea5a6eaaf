import { createCas, createMemoryStore } from "../../cas";
import { createConsoleTurns, type GuestPort } from "../../console";
import { createEventLog } from "../../log";
import type { RunnerDeps } from "../run";

/**
 * What a run needs, for tests: a fresh log and in-memory CAS, a resolver that is not reached,
 * empty skill stores, one console conversation, the fixed id `abcd`, and the given guest.
 */
export function runnerDeps(guest: Promise<GuestPort>): RunnerDeps {
  const log = createEventLog();
  return {
    log,
    cas: createCas({ store: createMemoryStore(), log }),
    resolver: { resolveForRun: () => Promise.reject(new Error("not in this test")) },
    runtimeFetch: { arm: () => () => undefined },
    guest,
    randomId: () => "abcd",
    skills: {
      store: { put: () => Promise.reject(new Error("unused")), get: async () => null },
      handles: { put: async () => undefined, get: async () => null, list: async () => [] },
      attached: () => [],
      scriptPins: () => new Set(),
    },
    turns: createConsoleTurns(),
    scripts: { "bin/tab-run": "#!/bin/sh\n" },
  };
}
