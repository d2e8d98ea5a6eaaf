import type { Cas } from "../../cas";
import type { ConsoleTaskResult } from "../../console";
import type { SequenceStep } from "../../log";
import type { ModelEndpoint } from "../../model";
import type { OrgAllowlist, Resolution } from "../../resolver";
import type { ContractResult } from "../cache/contract";
import type { Scenario } from "../chrome/scenarios";
import type { CasDatabase, PageDigest, PageServices, PageSkills, PageVault, ResolveMode, RunOptions, RunResult } from "../services/types";
import type { ModelRunOptions } from "./model/model-run";
import type { TimelineCounts, TimelineMark } from "./timeline/model";

/**
 * What each feature exposes on `window.__tab.features` (`ctx.expose`): for the e2e suite and
 * for curious users, typed so that a test reads it without a cast. Features never read it.
 */
export interface ExposedFeatures {
  resolver: {
    cas: Cas;
    session: PageServices["resolver"];
    orgAllowlist: OrgAllowlist;
    db: CasDatabase;
    digest: PageDigest;
    resolve(harness: string, mode?: ResolveMode): Promise<Resolution | null>;
    lockFileText(): string | null;
    /** Runs the CAS contract (src/cas/contract.ts) against a real IndexedDB store in this browser. */
    runCasContract(): Promise<ContractResult[]>;
  };
  skills: Pick<PageSkills, "store" | "handles" | "choices">;
  vault: {
    vaultId: string;
    sgit: string;
    /** Puts the demo vault on the policy and seeds it (idempotent). */
    createDemoVault(): Promise<unknown>;
    /** Resolves once /mnt/tab/bin/sgit is in the share. */
    ready(): Promise<void>;
    /** The sha256 of the demo vault's current manifest in the cache (unverified; null when empty). */
    head(): ReturnType<PageVault["service"]["storage"]["head"]>;
    /** The newest head the KMS remembers for the demo vault ({generation, manifest} or null). */
    knownHead(): ReturnType<PageVault["service"]["kms"]["knownHead"]>;
    /** The write grants waiting for the operator (what the approval card shows). */
    pendingApprovals(): ReturnType<PageVault["approvals"]["pending"]>;
    runScenario(): Promise<ConsoleTaskResult>;
  };
  runner: { run(options?: RunOptions): Promise<RunResult> };
  model: { run(options?: ModelRunOptions): Promise<RunResult>; armed(): ReturnType<ModelEndpoint["armed"]> };
  share: {
    /** Settles once the link's replay ran (or there was none). */
    replayed: Promise<unknown>;
    /** The verdict sequence of the rows and runs this page ran (what a link carries). */
    sequence(): SequenceStep[];
  };
  timeline: { counts(): TimelineCounts; marks(): readonly TimelineMark[]; notDrawn(): number };
  lessons: {
    opened: Promise<void>;
    state(): {
      pin: string | null;
      step: number | null;
      done: boolean;
      refusal: { code: string; reason: string } | null;
      history: string[];
    };
    open(name: string): Promise<void>;
    /** Settles once the newest setup or resume typing ended. */
    setupDone(): Promise<void>;
  };
  embed: {
    scenario: string | null;
    message: string | null;
    panel: Scenario["expect"]["panel"];
    run: (() => Promise<void>) | null;
  };
  verdictNotice: { shown(): string[] };
}
