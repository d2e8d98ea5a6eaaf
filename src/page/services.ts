import { toHex } from "../bytes";
import { type Cas, createCas, createIdbStore } from "../cas";
import type { EventLog } from "../log";
import type { ModelEndpoint } from "../model";
import type { OwnHandlers } from "../proxy";
import type { FetchLike, OrgAllowlist } from "../resolver";
import { createPageDigest, type PageDigest } from "./cache/digest";
import type { ConsoleTurns } from "./console/console-turns";
import type { Guest } from "./emulator/boot";
import { createPageModelEndpoint } from "./features/model/endpoint";
import { harnessFromHref } from "./features/resolve/link";
import { createPageOrgAllowlist } from "./features/resolve/org-allowlist";
import { createResolverSession, type ResolverSession } from "./features/resolve/session";
import { createPageRunner, type PageRunner } from "./features/runner/page-runner";
import { proposedPrefixes } from "./features/share/link";
import { createPageSkills, type PageSkills } from "./features/skills/stores";
import { createPageVault, type PageVault } from "./features/vault/service";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DATABASE = { name: "linux-in-a-tab", store: "cas" } as const;

/**
 * The page's services, built once here and handed to every feature as `ctx.services`: one
 * instance of each, so the proxy serves the same vault and model endpoint the features
 * drive, and the resolver, skills and vault share one verified cache (content-addressed, re-hashed on every read).
 */
export interface PageServices {
  /** The CAS's digest (its counts show where large inputs were hashed). */
  digest: PageDigest;
  /** The one content-addressed cache on IndexedDB: harness resources, skills, vault blobs. */
  cas: Cas;
  casDatabase: typeof CAS_DATABASE;
  skills: PageSkills;
  vault: PageVault;
  /** `POST /v0/model`: the Model section arms it, the proxy serves it. */
  modelEndpoint: ModelEndpoint;
  /** The sample bundle, its recordings, pinned URLs: the Resolver panel's and the runner's. */
  resolver: ResolverSession;
  /** The org allowlist every resolve uses: edited in the Resolver panel, proposed (never applied) by a share link. */
  orgAllowlist: OrgAllowlist;
  runner: PageRunner;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`). */
  proxyHandlers: OwnHandlers;
  /** The real network, for what the page itself fetches (registries, pinned policies). */
  fetch: FetchLike;
}

export interface PageServicesOptions {
  log: EventLog;
  /** The page's own URL: the sample bundle sits beside it, and its query says `?fixtures=`. */
  href: string;
  fetch: FetchLike;
  guest: Promise<Guest>;
  turns: ConsoleTurns;
  /** Where the operator keeps small choices (the skills to attach); null when there is none. */
  storage: Storage | null;
  /** What "Run agent" runs when nobody says: the harness field, else the link's, else the demo. */
  harnessField(): string;
}

export function createPageServices(options: PageServicesOptions): PageServices {
  const { log, href, fetch } = options;
  const digest = createPageDigest();
  const cas = createCas({ store: createIdbStore(CAS_DATABASE.name, CAS_DATABASE.store), log, digest });
  const skills = createPageSkills(cas, options.storage);
  const vault = createPageVault({ cas, log });
  const modelEndpoint = createPageModelEndpoint();
  const link = harnessFromHref(href);
  const bundleRoot = new URL("samples/", href).href;
  const orgAllowlist = createPageOrgAllowlist({ log, storage: options.storage, bundleRoot });
  // Proposed here, before any feature mounts, so a link's resolve always sees it pending.
  // An embedded view has no Resolver panel to ask in: its proposals are dropped, said on the log,
  // rather than leaving the link's resolve waiting for an answer nobody can give.
  const proposed = proposedPrefixes(link.params);
  if (proposed.length > 0 && link.params.get("embed") === "1")
    log.append({
      kind: "note",
      level: "warning",
      source: "resolver",
      message: `an embedded view does not take org allowlist proposals; ignored: ${proposed.join(", ")}`,
    });
  else if (proposed.length > 0) void orgAllowlist.propose(proposed, "share link");
  const resolver = createResolverSession({
    cas,
    log,
    bundleRoot,
    recordings: link.params.get("fixtures") === "samples",
    fetch,
    orgAllowlist,
  });
  const runner = createPageRunner({
    log,
    cas,
    resolver,
    guest: options.guest,
    turns: options.turns,
    randomId: () => toHex(crypto.getRandomValues(new Uint8Array(4))),
    skills: {
      store: skills.store,
      handles: skills.handles,
      attached: () => skills.choices.attached(),
      scriptPins: () => skills.choices.scriptPins(),
    },
    defaultHarness: () => options.harnessField() || link.harness || "demo",
  });
  return {
    digest,
    cas,
    casDatabase: CAS_DATABASE,
    skills,
    vault,
    modelEndpoint,
    resolver,
    orgAllowlist,
    runner,
    proxyHandlers: { ...vault.service.handlers, ...modelEndpoint.handlers },
    fetch,
  };
}
