import { describe, it } from "vitest";
import { type CasContractOptions, casContractChecks } from "../contract";

/** Runs the CAS contract as a Vitest suite (the browser e2e suite runs the same checks). */
export function runCasContract(name: string, options: CasContractOptions): void {
  describe(`CAS contract: ${name}`, () => {
    for (const c of casContractChecks(options)) it(c.name, () => c.run());
  });
}
