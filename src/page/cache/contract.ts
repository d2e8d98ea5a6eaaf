import { casContractChecks, createIdbStore } from "../../cas";
import { messageOf } from "../../platform";

export interface ContractResult {
  name: string;
  ok: boolean;
  error?: string;
}

const CONTRACT_DB = "linux-in-a-tab-cas-contract";

/**
 * Runs the CAS contract (one contract suite, many implementations: docs/decisions/0007-how-the-code-is-shaped.md) against the real
 * IndexedDB store in this browser, on a database of its own so the page's cache is untouched.
 * Loaded on demand (e2e and curious users), never on the page's first load.
 */
export async function runCasContractInBrowser(): Promise<ContractResult[]> {
  const store = createIdbStore(CONTRACT_DB, "cas");
  const checks = casContractChecks({
    // Each check runs alone, in order: "a fresh, empty store" is the same store, emptied.
    async create() {
      await store.clear();
      return store;
    },
  });
  const results: ContractResult[] = [];
  for (const check of checks) {
    try {
      await check.run();
      results.push({ name: check.name, ok: true });
    } catch (error) {
      results.push({ name: check.name, ok: false, error: messageOf(error) });
    }
  }
  await store.clear();
  return results;
}
