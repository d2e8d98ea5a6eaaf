import type { Cas } from "../../cas";
import type { EventLog } from "../../log";
import { createSerialQueue } from "../../platform";
import {
  buildLockFile,
  createFixtureFetch,
  createHttpLocalFiles,
  type FetchLike,
  type LocalFiles,
  lockNameOf,
  type OrgAllowlist,
  type OrgConfig,
  type Resolution,
  type RunScope,
  readOrgConfig,
  renderLockFile,
  resolveHarnessSession,
} from "../../resolver";
import { SAMPLE } from "../link";

export const SAMPLE_HARNESS_PATH = "/.fullsend/harness/demo.yaml";
export const ORG_CONFIG_PATH = "/.fullsend/config.yaml";
const FIXTURES_ROOT = "/fixtures";

export type ResolveMode = "resolve" | "warm" | "offline";

export interface PageResolverOptions {
  cas: Cas;
  log: EventLog;
  /** The sample bundle's root URL (public/samples, served at `samples/`). */
  bundleRoot: string;
  /** `?fixtures=samples`: every remote fetch is answered from the bundle's recordings. */
  recordings: boolean;
  /** The real network (the product is written for the real internet). */
  fetch: FetchLike;
  /** The operator's org allowlist (the Resolver panel's), used as the org config's `allowed_remote_resources`. */
  orgAllowlist: OrgAllowlist;
}

export interface ResolveRecord {
  harness: string;
  mode: ResolveMode;
  resolution: Resolution;
}

export interface PageResolver {
  readonly cas: Cas;
  readonly bundle: LocalFiles;
  /** Resolves `sample`, a bundle path, or an `https://…#sha256=…` URL. Runs one at a time. */
  resolve(harness: string, mode?: ResolveMode): Promise<Resolution>;
  /**
   * Resolves a harness for an agent run, under the run's id (its nodes are the run's in the
   * Resolver tree), keeping the run's session: what the run may still resolve while it lasts
   * (run-time fetches) meets the same allowlists, pins and cache. Null session: it did not resolve.
   */
  resolveForRun(harness: string, runId: string): Promise<{ resolution: Resolution; session: RunScope | null }>;
  /** The last run of any mode, and the last full successful one (what a lock file is made of). */
  last(): ResolveRecord | null;
  lastLockable(): ResolveRecord | null;
  /** `.fullsend/lock.yaml` for the last successful full resolve, or null when there is none. */
  lockFileText(now?: number): string | null;
  /** Settles once no resolve is queued or running, including one queued by a callback just now. */
  whenIdle(): Promise<void>;
}

/**
 * The page's resolver: the sample bundle as local files, the bundle's config.yaml as the org
 * config with the operator's org allowlist (its default is that config's) in place of its
 * `allowed_remote_resources`, recordings or the real fetch, and the shared CAS. Runs are
 * serialized so the Resolver panel's tree always belongs to one run.
 */
export function createPageResolver(options: PageResolverOptions): PageResolver {
  const { cas, log } = options;
  const bundle = createHttpLocalFiles({ root: options.bundleRoot, fetch: (url, init) => fetch(url, init) });
  const recorded = createFixtureFetch(bundle, FIXTURES_ROOT);
  let orgConfig: Promise<OrgConfig | null> | null = null;
  const queue = createSerialQueue();
  let last: ResolveRecord | null = null;
  let lastLockable: ResolveRecord | null = null;

  const readOrg = () => {
    orgConfig ??= readOrgConfig(bundle, ORG_CONFIG_PATH).then(
      (r) => (r.ok ? r.config : null),
      () => null,
    );
    return orgConfig;
  };

  async function run(harness: string, mode: ResolveMode, runId?: string): Promise<{ resolution: Resolution; session: RunScope | null }> {
    const isBundle = harness === SAMPLE || harness.startsWith("/");
    const ref = harness === SAMPLE ? SAMPLE_HARNESS_PATH : harness;
    await options.orgAllowlist.ready;
    const sampleConfig = await readOrg();
    const { resolution, session } = await resolveHarnessSession({
      harness: ref,
      cas,
      log,
      orgConfig: { ...sampleConfig, allowed_remote_resources: [...options.orgAllowlist.entries()] },
      // The bundle's remote library exists only as recordings; a shared URL uses the network
      // unless the link asked for the recordings.
      fetch: isBundle || options.recordings ? recorded : options.fetch,
      ...(isBundle ? { local: bundle } : {}),
      ...(mode === "offline" ? { offline: true } : {}),
      ...(mode === "warm" ? { warm: true } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
    last = { harness, mode, resolution };
    if (mode === "resolve" && resolution.ok) lastLockable = last;
    return { resolution, session };
  }

  return {
    cas,
    bundle,
    resolve: (harness, mode = "resolve") => queue.run(async () => (await run(harness, mode)).resolution),
    resolveForRun: (harness, runId) => queue.run(() => run(harness, "resolve", runId)),
    last: () => last,
    lastLockable: () => lastLockable,
    async whenIdle() {
      for (;;) {
        await queue.settled();
        // A task later: what a settled promise's other callbacks queue counts too.
        await new Promise((done) => setTimeout(done, 0));
        if (queue.pending === 0) return;
      }
    },
    lockFileText(now = Date.now()) {
      if (!lastLockable) return null;
      const { harness, resolution } = lastLockable;
      const ref = harness === SAMPLE ? SAMPLE_HARNESS_PATH : harness;
      const name = lockNameOf(ref);
      // A local harness is named by its path relative to the .fullsend base.
      const source = ref.startsWith("/.fullsend/") ? ref.slice("/.fullsend/".length) : resolution.source;
      return renderLockFile(buildLockFile(resolution, name, now, { source }));
    },
  };
}
