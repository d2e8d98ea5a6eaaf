import type { Cas } from "../../cas";
import type { ConsoleTurns, GuestPort } from "../../console";
import type { EventLog } from "../../log";
import type { ModelEndpoint } from "../../model";
import type { OwnEndpointSpec, OwnHandlers } from "../../proxy";
import type { FetchLike, OrgAllowlist, RuntimeFetchEndpoint } from "../../resolver";
import type { PageDigest } from "../cache/digest";
import type { PageLink } from "../link";
import type { PageResolver } from "./resolver";
import type { PageRunner } from "./runner/page-runner";
import type { PageSkills } from "./skills";
import type { PageVault } from "./vault";

export type { ActiveRun, RunOptions, RunResult } from "../../runner";
// The one file of the services that features import (types only): the services' code loads
// with them, built once by the composition root (./index.ts), and reaches a feature as `ctx.services`.
export type { ResolveMode, ResolveRecord } from "./resolver";
export type { RunnerState } from "./runner/page-runner";
export type { SkillChoices } from "./skill-choices";
export type { ApprovalQueue, PendingApproval } from "./vault-approvals";
export type { PageDigest, PageRunner, PageSkills, PageVault };

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export interface CasDatabase {
  readonly name: string;
  readonly store: string;
}

/** What the proxy must know of a route before its code loads: the decision's mode and the body type it requires. */
export type OwnRouteDeclaration = Omit<OwnEndpointSpec, "handle">;

/**
 * The page's services, built once by `createPageServices` (./index.ts) and handed to every feature as `ctx.services`: one
 * instance of each, so the proxy serves the same vault and model endpoint the features
 * drive, and the resolver, skills and vault share one verified cache (content-addressed, re-hashed on every read).
 */
export interface PageServices {
  /** The CAS's digest (its counts show where large inputs were hashed). */
  digest: PageDigest;
  /** The one content-addressed cache on IndexedDB: harness resources, skills, vault blobs. */
  cas: Cas;
  casDatabase: CasDatabase;
  skills: PageSkills;
  vault: PageVault;
  /** `POST /v0/model`: the Model section arms it, the proxy serves it. */
  modelEndpoint: ModelEndpoint;
  /** `POST /v0/resolve` (tab-fetch): the runner arms it for a run's duration, the proxy serves it. */
  runtimeFetch: RuntimeFetchEndpoint;
  /** The sample bundle, its recordings, pinned URLs: the Resolver panel's and the runner's. */
  resolver: PageResolver;
  /** The org allowlist every resolve uses: edited in the Resolver panel, proposed (never applied) by a share link. */
  orgAllowlist: OrgAllowlist;
  runner: PageRunner;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`, `/v0/resolve`). */
  proxyHandlers: OwnHandlers;
  /** The real network, for what the page itself fetches (registries, pinned policies). */
  fetch: FetchLike;
  /** The page's link, read once (src/page/link.ts). */
  link: PageLink;
}

/**
 * The services before their code is loaded. Their code (the cache, the resolver and its YAML
 * parser, the KMS, the runner, the model endpoint) is not part of the first screen: `load()`
 * imports and builds them, once, on first use. The proxy's handlers exist from the start and
 * load the services when the guest first calls one.
 */
export interface LazyPageServices {
  /** Builds the services on the first call (later calls get the same instances). */
  load(): Promise<PageServices>;
  /** The page's own endpoints on the proxy, for the guest's boot: each loads the services on its first request. */
  proxyHandlers: OwnHandlers;
}

export interface PageServicesOptions {
  log: EventLog;
  /** The page's link, read once: the sample bundle sits beside it, and it says `?fixtures=`, `?allow-prefix=`, `?embed=`. */
  link: PageLink;
  fetch: FetchLike;
  guest: Promise<GuestPort>;
  turns: ConsoleTurns;
  /** Where the operator keeps small choices (the skills to attach); null when there is none. */
  storage: Storage | null;
  /** Whether IndexedDB opens here (src/page/storage-probe.ts): else the cache lives in memory for this visit. */
  databases: Promise<boolean>;
  /** What "Run agent" runs when nobody says: the harness field, else the link's, else the demo. */
  harnessField(): string;
}
