import defaultPolicyFile from "./default-policy.json";
import { Policy } from "./schema";

/**
 * The policy the page starts with (and `npx tab proxy` without `--policy`): api.github.com
 * (read-only API paths) and raw.githubusercontent.com, both of which answer CORS, so the
 * first rows of the verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md) work in a browser.
 */
export const DEFAULT_POLICY: Policy = Policy.parse(defaultPolicyFile);

/** The default policy as the text a user edits in the Policy panel. */
export const DEFAULT_POLICY_TEXT: string = `${JSON.stringify(defaultPolicyFile, null, 2)}\n`;
