import agentRules from "../../../../guest/runner/agent-rules.md?raw";
import tabAgent from "../../../../guest/runner/tab-agent?raw";
import tabFetch from "../../../../guest/runner/tab-fetch?raw";
import tabRun from "../../../../guest/runner/tab-run?raw";

/**
 * The guest runner's scripts, bundled into the page (Vite `?raw`) and written to the 9p share
 * before each run, so the committed guest image does not change when they do.
 */
export const RUNNER_SCRIPTS: Readonly<Record<string, string>> = {
  "bin/tab-run": tabRun,
  "bin/tab-agent": tabAgent,
  "bin/tab-fetch": tabFetch,
  "bin/agent-rules.md": agentRules,
};
