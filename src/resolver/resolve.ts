import { allow, refuse, type Verdict } from "../log";
import { systemClock } from "../platform";
import type { AllowlistEntry } from "./allowlist";
import { parseAllowlistEntry } from "./allowlist";
import { type FieldRef, fieldRefs, mergeLayers, setAt, specForDependency } from "./fields";
import { HARNESS_SPEC, HarnessLayers } from "./harness-layers";
import { lockedPins, lockNameOf } from "./lock";
import type { ObtainContext } from "./obtain";
import { lintPreflight } from "./preflight";
import { type Allowlists, type Outcome, ResourceResolver } from "./resolve-resource";
import { now, RunRecord, type Step } from "./run-record";
import type { RunScope } from "./run-scope";
import type { Harness } from "./schema";
import { DEFAULT_LIMITS, type Resolution, type ResolveOptions } from "./types";
import { WalkLimits } from "./walk-limits";

export { remoteBaseOf } from "./harness-layers";

/**
 * Resolves a harness (docs/decisions/0001-harness-resources-by-url-and-path.md, docs/decisions/0002-preflight-check-is-a-literal-command.md):
 * schema, allowlists, `base:` layers, every resource field with its pin, the transitive
 * closure of skills, offline misses, lint — one `resolver.step` event per node.
 */
export async function resolveHarness(options: ResolveOptions): Promise<Resolution> {
  return (await resolveHarnessSession(options)).resolution;
}

/**
 * `resolveHarness`, and — when the harness resolved (not a cache warm) — the run's session: the
 * same allowlists, walk limits (one pin per URL, the remote total), lock pins, cache and node
 * tree, for what the run may still resolve while it lasts (run-time fetches, runtime-fetch.ts).
 */
export async function resolveHarnessSession(options: ResolveOptions): Promise<{ resolution: Resolution; session: RunScope | null }> {
  const none = (resolution: Resolution) => ({ resolution, session: null });
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const record = new RunRecord(options.runId ?? crypto.randomUUID(), options.harness, options.log);
  const lockName = options.lockName ?? lockNameOf(options.harness);
  const obtain: ObtainContext = {
    cas: options.cas,
    fetch: options.fetch ?? null,
    offline: options.offline === true || options.fetch === undefined,
    limits,
    clock: options.clock ?? systemClock,
    onOfflineMiss: (url) => record.offlineMiss(url),
    ...(options.digest ? { digest: options.digest } : {}),
  };
  const warm = options.warm === true;

  record.progress("start");
  const org: AllowlistEntry[] = [];
  for (const [i, raw] of (options.orgConfig?.allowed_remote_resources ?? []).entries()) {
    const entry = parseAllowlistEntry(raw);
    if (!entry.ok)
      return none(record.failed(refuse("invalid-harness", `org config allowed_remote_resources[${i}]: ${entry.reason}`, "resolver")));
    org.push(entry.entry);
  }
  const allowlists: Allowlists = { org, harness: [] };
  const walk = new WalkLimits(limits);
  const resources = new ResourceResolver({
    options,
    record,
    walk,
    allowlists,
    obtain,
    lockPins: lockedPins(options.lock ?? null, lockName),
  });
  const layerLoader = new HarnessLayers({ options, record, walk, allowlists, resources });

  const root = await layerLoader.root(options.harness);
  if (!root.layer) return none(record.result(null, warm));
  const rootId = root.outcome.res.id;
  if (root.outcome.res.sha256 !== null && options.lock) {
    const locked = options.lock.harnesses[lockName];
    if (locked && locked.sha256 !== root.outcome.res.sha256) {
      record.lint({
        field: "harness",
        severity: "warning",
        code: "lock-stale",
        message: `lock.yaml records ${lockName} at ${locked.sha256}; the harness is now ${root.outcome.res.sha256}`,
      });
    }
  }
  const layers = await layerLoader.withBases({ outcome: root.outcome, layer: root.layer });
  if (!layers) return none(record.result(null, warm));

  const { merged, origins } = mergeLayers(layers);
  const harness = merged as Harness;
  for (const f of ["validation_loop.preflight_check", "preflight_check"]) {
    const command = f === "preflight_check" ? merged.preflight_check : harness.validation_loop?.preflight_check;
    if (typeof command !== "string") continue;
    record.expect(1);
    record.record(
      { field: f, ref: command, spec: HARNESS_SPEC, origin: null, depth: 1, parent: rootId, chain: [], resource: "command" },
      now(),
      allow("a literal sh -c command: never resolved or fetched", "resolver"),
      {},
    );
    for (const d of lintPreflight(f, command)) record.lint(d);
  }

  // The whole harness is validated before its first request: every field planned (no I/O),
  // and one refusal anywhere means nothing it names is fetched.
  const refs: FieldRef[] = fieldRefs(harness, origins, root.layer.origin);
  const planned = refs.map((ref) => {
    const step: Step = {
      field: ref.field,
      ref: ref.ref,
      spec: ref.spec,
      origin: ref.origin,
      depth: 1,
      parent: rootId,
      chain: [root.outcome.identity ?? options.harness],
    };
    return { ref, step, started: now(), plan: resources.plan(step) };
  });
  const runtime = runtimeFetchRefusals(harness, rootId);
  const refusedPlans = planned.filter((p) => p.plan.kind === "refused");
  if (runtime.length > 0 || refusedPlans.length > 0) {
    record.expect(runtime.length + refusedPlans.length);
    for (const r of runtime) record.record(r.step, now(), r.verdict, {});
    for (const p of refusedPlans) await resources.execute(p.step, p.started, p.plan);
    return none(record.result(null, warm));
  }
  record.expect(refs.length);
  const output = structuredClone(merged);
  for (const { ref, step, started, plan } of planned) {
    const outcome = await resources.execute(step, started, plan);
    if (outcome.res.verdict.allowed) {
      setAt(output, ref.path, outcome.res.location);
      await closure(outcome, step);
    }
  }
  const resolution = record.result(warm ? null : output, warm);
  if (!resolution.ok || warm) return none(resolution);
  const session: RunScope = {
    run: record.run,
    harness,
    rootId,
    rootIdentity: root.outcome.identity ?? options.harness,
    offline: obtain.offline,
    record,
    resources,
  };
  return { resolution, session };

  /**
   * The transitive closure of a skill: its SKILL.md frontmatter `dependencies:`. A remote
   * skill's relative dependencies are siblings under its pinned tree; a local skill's resolve
   * against the base. A dependency already resolved elsewhere (a diamond) is that one node.
   */
  async function closure(outcome: Outcome, step: Step): Promise<void> {
    const value = outcome.obtained?.value as { data?: { dependencies?: unknown } } | undefined;
    const deps = value?.data?.dependencies;
    if (step.spec.directory !== "skill" || !Array.isArray(deps) || outcome.identity === null) return;
    const steps = (deps as string[]).map(
      (dep, j): Step => ({
        field: `${step.field}.dependencies[${j}]`,
        ref: dep,
        spec: specForDependency(dep),
        origin: outcome.origin,
        depth: step.depth + 1,
        parent: outcome.res.id,
        chain: [...step.chain, outcome.identity!],
      }),
    );
    const tooMany = walk.admitDependencies(step.field, steps.length);
    if (tooMany) {
      record.expect(1);
      record.record(steps[limits.maxDependencies]!, now(), tooMany, {});
      return;
    }
    record.expect(steps.length);
    for (const next of steps) {
      const child = await resources.resolve(next);
      if (child.shared) {
        record.expect(-1);
        continue;
      }
      if (child.res.verdict.allowed) await closure(child, next);
    }
  }
}

/**
 * `allow_runtime_fetch` and `max_runtime_fetches` of the merged harness (the fetches themselves
 * are runtime-fetch.ts's): run-time fetching needs at least one `allowed_remote_resources` entry to
 * fetch under, and `max_runtime_fetches` is 1–1000 (the schema) and only meaningful with it.
 */
function runtimeFetchRefusals(harness: Harness, rootId: number): { step: Step; verdict: Verdict }[] {
  const out: { step: Step; verdict: Verdict }[] = [];
  const stepOf = (field: string, value: unknown): Step => ({
    field,
    ref: String(value),
    spec: HARNESS_SPEC,
    origin: null,
    depth: 1,
    parent: rootId,
    chain: [],
    resource: "allowlist",
  });
  if (harness.allow_runtime_fetch === true && (harness.allowed_remote_resources ?? []).length === 0)
    out.push({
      step: stepOf("allow_runtime_fetch", true),
      verdict: refuse(
        "invalid-harness",
        "allow_runtime_fetch needs at least one allowed_remote_resources entry to fetch under",
        "resolver",
      ),
    });
  if (harness.max_runtime_fetches !== undefined && harness.allow_runtime_fetch !== true)
    out.push({
      step: stepOf("max_runtime_fetches", harness.max_runtime_fetches),
      verdict: refuse("invalid-harness", "max_runtime_fetches is only allowed together with allow_runtime_fetch: true", "resolver"),
    });
  return out;
}
