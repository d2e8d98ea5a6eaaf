import { SCENARIOS, type Scenario } from "../../chrome/scenarios";
import { VAULT_SCENARIO } from "../../chrome/vault-scenario";

/**
 * Every row of the verdict table an embed may name (docs/decisions/0005-the-page-is-the-only-network-client.md):
 * the page's own rows and row 8, whose static description sits beside them (chrome/vault-scenario.ts) (it adds the row to
 * the scenario bar with its `prepare` once the vault exists, after the embed has mounted). The
 * embed reads its link against this table at once, so `?embed=1&scenario=8` is a row like any
 * other; it runs the row through the scenario bar once the bar lists it. Only the static
 * description is read here: the vault feature itself is never looked up.
 */
export const EMBEDDABLE_ROWS: readonly Scenario[] = [...SCENARIOS, VAULT_SCENARIO];
