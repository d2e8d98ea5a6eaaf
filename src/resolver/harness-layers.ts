import { refuse } from "../log";
import { type AllowlistEntry, checkSubset, parseAllowlistEntry } from "./allowlist";
import type { FieldSpec, Layer, Origin } from "./fields";
import { baseOfHarnessPath, joinPath, resolveDotSegments } from "./paths";
import { parsePinnedUrl, refForm } from "./reference";
import type { Allowlists, Outcome, ResourceResolver } from "./resolve-resource";
import { now, type RunRecord, type Step } from "./run-record";
import { parseHarness } from "./schema";
import type { ResolveOptions } from "./types";
import type { WalkLimits } from "./walk-limits";

/** How a harness or base file is read: a declarative YAML mapping. */
export const HARNESS_SPEC: FieldSpec = { executable: false, shape: "file", content: "yaml-mapping" };

/** A URL harness's `.fullsend` base: its directory, or the parent when that directory is `harness/`. */
export function remoteBaseOf(url: string): string {
  const dir = new URL(".", url);
  return dir.pathname.endsWith("/harness/") ? new URL("..", dir).href : dir.href;
}

export interface LayerContext {
  options: Pick<ResolveOptions, "base">;
  record: RunRecord;
  walk: WalkLimits;
  allowlists: Allowlists;
  resources: ResourceResolver;
}

/** A loaded harness or base, and its node; `layer` is null when it was refused. */
export interface LayerLoad {
  outcome: Outcome;
  layer: Layer | null;
}

/**
 * The harness and its `base:` chain (the one way scripts may come from a URL): each layer fetched or
 * read, schema-checked, and its own allowlist entries checked against the org's before
 * anything it names is fetched.
 */
export class HarnessLayers {
  constructor(private readonly ctx: LayerContext) {}

  /** The harness itself: a local path (under `--base` or its own `.fullsend`) or a pinned URL. */
  root(ref: string): Promise<LayerLoad> {
    return this.load(
      { field: "harness", ref, spec: HARNESS_SPEC, origin: null, depth: 0, parent: null, chain: [], resource: "harness" },
      true,
    );
  }

  /** The root's layer followed by its bases, nearest first; null once a base was refused. */
  async withBases(root: LayerLoad & { layer: Layer }): Promise<Layer[] | null> {
    const { record, walk } = this.ctx;
    const layers: Layer[] = [root.layer];
    const seen = [root.outcome.identity ?? root.outcome.res.ref];
    let current = root.layer;
    let parent = root.outcome.res.id;
    let field = "base";
    while (current.doc.base !== undefined) {
      const depth = layers.length;
      record.expect(1);
      const step: Step = {
        field,
        ref: current.doc.base,
        spec: HARNESS_SPEC,
        origin: current.origin,
        depth,
        parent,
        chain: [],
        resource: "base",
      };
      const tooDeep = walk.admitBase(depth);
      if (tooDeep) {
        record.record(step, now(), tooDeep, {});
        return null;
      }
      const loaded = await this.loadBase(step, seen);
      if (!loaded) return null;
      layers.push(loaded.layer);
      seen.push(loaded.identity);
      current = loaded.layer;
      parent = loaded.id;
      field = `${field}.base`;
    }
    return layers;
  }

  private async loadBase(step: Step, seen: readonly string[]): Promise<{ layer: Layer; identity: string; id: number } | null> {
    const form = refForm(step.ref);
    const identity =
      form === "url"
        ? parsePinnedUrl(step.ref).url
        : step.origin?.kind === "remote"
          ? new URL(step.ref, step.origin.base).href
          : joinPath(step.origin?.base ?? "/", step.ref);
    const cycle = this.ctx.walk.baseCycle(identity, seen);
    if (cycle) {
      this.ctx.record.record(step, now(), cycle, {});
      return null;
    }
    const loaded = await this.load(step, false);
    if (!loaded.layer) return null;
    return { layer: loaded.layer, identity, id: loaded.outcome.res.id };
  }

  /** The harness or one of its bases: fetched or read, parsed, schema-checked, allowlist-checked. */
  private async load(step: Step, isRoot: boolean): Promise<LayerLoad> {
    const { record, resources, options } = this.ctx;
    let outcome: Outcome;
    if (isRoot && refForm(step.ref) !== "url") {
      const started = now();
      const path = resolveDotSegments(step.ref.startsWith("/") ? step.ref : `/${step.ref}`);
      const base = options.base !== undefined ? resolveDotSegments(options.base) : baseOfHarnessPath(path);
      outcome = await resources.local(step, started, path, { kind: "local", base });
    } else {
      outcome = await resources.resolve(step);
    }
    if (!outcome.res.verdict.allowed || !outcome.obtained) return { outcome, layer: null };
    const parsed = parseHarness(outcome.obtained.value);
    if (!parsed.ok) {
      outcome.res.verdict = parsed.verdict;
      record.lint({ field: parsed.field, severity: "error", code: "invalid-harness", message: parsed.verdict.reason });
      return { outcome, layer: null };
    }
    const origin: Origin =
      outcome.res.url !== null
        ? { kind: "remote", base: remoteBaseOf(outcome.res.url) }
        : isRoot
          ? (outcome.origin as Origin)
          : { kind: "local", base: step.origin?.kind === "local" ? step.origin.base : baseOfHarnessPath(outcome.res.path ?? "/") };
    // Harness-level entries must be under org entries, before any fetch.
    const entries = parsed.value.allowed_remote_resources ?? [];
    const layerEntries: AllowlistEntry[] = [];
    const prefix = step.resource === "base" ? `${step.field}.` : "";
    for (const [i, raw] of entries.entries()) {
      const entry = parseAllowlistEntry(raw);
      const field = `${prefix}allowed_remote_resources[${i}]`;
      const allowStep: Step = { ...step, field, ref: raw, parent: outcome.res.id, depth: step.depth, resource: "allowlist" };
      if (!entry.ok) {
        record.record(allowStep, now(), refuse("invalid-harness", `${field}: ${entry.reason}`, "resolver"), {});
        return { outcome, layer: null };
      }
      const notSubset = checkSubset([entry.entry], this.ctx.allowlists.org, field);
      if (notSubset) {
        record.record(allowStep, now(), { ...notSubset, reason: notSubset.reason.replace(`${field}[0]`, field) }, {});
        return { outcome, layer: null };
      }
      layerEntries.push(entry.entry);
    }
    this.ctx.allowlists.harness.push(...layerEntries);
    return { outcome, layer: { doc: parsed.value, origin } };
  }
}
