import { sha256Hex, utf8 } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import { checkRemoteUrl } from "./address";
import { type AllowlistEntry, checkAllowlisted, checkSubset, parseAllowlistEntry } from "./allowlist";
import { checkContent } from "./content";
import { type FieldRef, type FieldSpec, fieldRefs, type Layer, mergeLayers, type Origin, setAt, specForDependency } from "./fields";
import { lockedPins } from "./lock";
import { checkDirectory, type ObtainContext, type Obtained, obtainRemoteDirectory, obtainRemoteFile, walkLocalDirectory } from "./obtain";
import { basename, baseOfHarnessPath, isWithin, joinPath, normalizePath } from "./paths";
import { type LintDiagnostic, lintPreflight } from "./preflight";
import { parsePinnedUrl, refForm } from "./reference";
import { type Harness, parseHarness } from "./schema";
import { type TreeFile, treeHash, treeManifest } from "./tree-hash";
import { DEFAULT_LIMITS, type Resolution, type ResolvedResource, type ResolveOptions } from "./types";

/** A URL harness's `.fullsend` base: its directory, or the parent when that directory is `harness/`. */
export function remoteBaseOf(url: string): string {
  const dir = new URL(".", url);
  return dir.pathname.endsWith("/harness/") ? new URL("..", dir).href : dir.href;
}

/** `https://raw.githubusercontent.com/O/R/REF/p` → `https://github.com/O/R/tree/REF/p` (listable). */
function treeUrlOfRaw(url: string): string | null {
  const u = new URL(url);
  if (u.host !== "raw.githubusercontent.com") return null;
  const [, owner, repo, ref, ...rest] = u.pathname.replace(/\/$/, "").split("/");
  if (!owner || !repo || !ref) return null;
  return `https://github.com/${owner}/${repo}/tree/${ref}${rest.length ? `/${rest.join("/")}` : ""}`;
}

interface Step {
  field: string;
  ref: string;
  spec: FieldSpec;
  origin: Origin | null;
  depth: number;
  parent: number | null;
  chain: readonly string[];
  resource?: ResolvedResource["resource"];
}

interface Outcome {
  res: ResolvedResource;
  obtained: Obtained | null;
  identity: string | null;
  /** A local origin for a local resource's own relative references. */
  origin: Origin | null;
}

const now = () => (typeof performance !== "undefined" ? performance.now() : Date.now());

/**
 * Resolves a harness (ADR 38, 000_07afaa5a5b2c4dce.txt; ADR 128, 001_de6b5353bc123b0a.txt):
 * schema, allowlists, `base:` layers, every resource field with its pin, the transitive
 * closure of skills, offline misses, lint — one `resolver.step` event per node.
 */
export async function resolveHarness(options: ResolveOptions): Promise<Resolution> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const clock = options.clock ?? Date.now;
  const log = options.log;
  const { cas } = options;
  const run = options.runId ?? crypto.randomUUID();
  const offline = options.offline === true || options.fetch === undefined;
  const resources: ResolvedResource[] = [];
  const lints: LintDiagnostic[] = [];
  const misses: string[] = [];
  const pinsByUrl = new Map<string, string>();
  const remoteSeen = new Set<string>();
  const harnessAllow: AllowlistEntry[] = [];
  const lockName = options.lockName ?? basename(options.harness.split("#")[0]!).replace(/\.ya?ml$/i, "");
  const lockPins = lockedPins(options.lock ?? null, lockName);
  let expected = 1;
  const obtainCtx: ObtainContext = {
    cas,
    fetch: options.fetch ?? null,
    offline,
    limits,
    clock,
    onOfflineMiss: (url) => misses.push(url),
    ...(options.digest ? { digest: options.digest } : {}),
  };

  const progress = (phase: "start" | "progress" | "done" | "failed", message?: string) =>
    log?.append({
      kind: "resolver.run",
      run,
      phase,
      harness: options.harness,
      done: resources.length,
      total: Math.max(expected, resources.length),
      ...(message ? { message } : {}),
    });
  const lint = (d: LintDiagnostic) => {
    lints.push(d);
    log?.append({ kind: "resolver.lint", run, ...d });
  };

  function record(step: Step, started: number, verdict: Verdict, extra: Partial<ResolvedResource>): ResolvedResource {
    const form = refForm(step.ref);
    const res: ResolvedResource = {
      id: resources.length,
      parent: step.parent,
      depth: step.depth,
      field: step.field,
      ref: step.ref,
      refKind: step.resource === "command" ? "command" : form,
      resource: step.resource ?? step.spec.shape,
      url: null,
      path: null,
      pin: null,
      sha256: null,
      cache: "none",
      verdict,
      bytes: 0,
      durationMs: Math.max(0, now() - started),
      location: null,
      ...extra,
    };
    resources.push(res);
    log?.append({
      kind: "resolver.step",
      run,
      field: res.field,
      ref: res.ref,
      refKind: res.refKind,
      pin: res.pin,
      cache: res.cache,
      ...res.verdict,
      bytes: res.bytes,
      durationMs: res.durationMs,
      ...(res.warning !== undefined ? { warning: res.warning } : {}),
      id: res.id,
      parent: res.parent,
      depth: res.depth,
      resource: res.resource,
      sha256: res.sha256,
      ...(res.url !== null ? { url: res.url } : {}),
      ...(res.files ? { files: res.files.length } : {}),
    });
    progress("progress");
    return res;
  }

  const fromObtained = (o: Obtained): Partial<ResolvedResource> => ({
    sha256: o.sha256,
    cache: o.cache,
    bytes: o.bytes,
    location: o.sha256 !== null && o.verdict.allowed ? cas.locate(o.sha256) : null,
    ...(o.files ? { files: o.files } : {}),
    ...(o.warning !== undefined ? { warning: o.warning } : {}),
    ...(o.fetchedAt !== undefined ? { fetchedAt: o.fetchedAt } : {}),
  });

  async function remote(step: Step, started: number, url: string, pin: string | null): Promise<Outcome> {
    const fail = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Outcome => ({
      res: record(step, started, verdict, { url, pin, ...extra }),
      obtained: null,
      identity: url,
      origin: null,
    });
    const bad = checkRemoteUrl(url);
    if (bad) return fail(bad);
    const listed = checkAllowlisted(url, org, harnessAllow);
    if (!listed.allowed) return fail(listed);
    // A cycle is the sharper diagnosis: with content pins a cycle always also has a pin conflict.
    if (step.chain.includes(url))
      return fail(refuse("cycle", `${url} is its own ancestor: ${[...step.chain, url].join(" → ")}`, "resolver"));
    if (pin !== null) {
      const previous = pinsByUrl.get(url);
      if (previous !== undefined && previous !== pin) {
        return fail(
          refuse("hash-mismatch", `${url} is pinned with two different hashes in one harness (${previous} and ${pin})`, "resolver"),
        );
      }
      pinsByUrl.set(url, pin);
    }
    if (step.depth > limits.maxDepth)
      return fail(refuse("depth-exceeded", `${step.field} is ${step.depth} levels deep; the limit is ${limits.maxDepth}`, "resolver"));
    if (step.resource !== "harness") remoteSeen.add(url);
    if (remoteSeen.size > limits.maxRemoteResources) {
      return fail(refuse("breadth-exceeded", `more than ${limits.maxRemoteResources} remote resources in one harness`, "resolver"));
    }
    const lockSha = lockPins.get(url) ?? null;
    let lockWarning: string | undefined;
    if (pin !== null && lockSha !== null && lockSha !== pin) {
      lockWarning = `lock.yaml is stale: it pins ${lockSha}, the harness pins ${pin}`;
      lint({ field: step.field, severity: "warning", code: "lock-stale", message: lockWarning });
    }
    const obtained =
      step.spec.shape === "directory"
        ? await obtainRemoteDirectory(obtainCtx, url, pin, lockSha, step.spec.directory ?? "skill")
        : await obtainRemoteFile(
            obtainCtx,
            url,
            pin,
            lockSha,
            step.resource === "harness" || step.resource === "base" ? "yaml-mapping" : step.spec.content,
          );
    const extra = fromObtained(obtained);
    if (lockWarning !== undefined && extra.warning === undefined) extra.warning = lockWarning;
    if (obtained.warning?.startsWith("lock.yaml is stale"))
      lint({ field: step.field, severity: "warning", code: "lock-stale", message: obtained.warning });
    return { res: record(step, started, obtained.verdict, { url, pin, ...extra }), obtained, identity: url, origin: null };
  }

  async function localResource(step: Step, started: number, path: string, origin: Origin): Promise<Outcome> {
    const fail = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Outcome => ({
      res: record(step, started, verdict, { path, ...extra }),
      obtained: null,
      identity: path,
      origin,
    });
    const local = options.local;
    if (!local) return fail(refuse("fetch-failed", "no local files were given to read this path from", "resolver"));
    if (step.chain.includes(path))
      return fail(refuse("cycle", `${path} is its own ancestor: ${[...step.chain, path].join(" → ")}`, "resolver"));
    if (step.depth > limits.maxDepth)
      return fail(refuse("depth-exceeded", `${step.field} is ${step.depth} levels deep; the limit is ${limits.maxDepth}`, "resolver"));
    let obtained: Obtained;
    if (step.spec.shape === "directory") {
      const walked = await walkLocalDirectory(local, path, limits);
      if (!walked.ok) return fail(walked.verdict);
      const gate = checkDirectory(step.spec.directory ?? "skill", walked.fileBytes);
      if (!gate.ok) return fail(refuse("unparsable", `${path}: ${gate.reason}`, "resolver"));
      const files: TreeFile[] = [];
      let bytes = 0;
      for (const [p, b] of walked.fileBytes) {
        files.push({ path: p, sha256: await cas.put(b) });
        bytes += b.length;
      }
      await cas.put(utf8(treeManifest(files)));
      obtained = {
        verdict: allow(`local directory (${files.length} files)`, "resolver"),
        sha256: await treeHash(files, options.digest),
        cache: "none",
        bytes,
        files,
        fileBytes: walked.fileBytes,
        value: gate.value,
      };
    } else {
      const bytes = await local.read(path);
      if (bytes === null) return fail(refuse("fetch-failed", `no such local file ${path}`, "resolver"));
      const parsed = checkContent(bytes, step.resource === "harness" || step.resource === "base" ? "yaml-mapping" : step.spec.content);
      if (!parsed.ok)
        return fail(refuse("unparsable", `${path}: ${parsed.reason}`, "resolver"), {
          bytes: bytes.length,
          sha256: await sha256Hex(bytes, options.digest),
        });
      const sha256 = await cas.put(bytes);
      obtained = {
        verdict: allow("local file", "resolver"),
        sha256,
        cache: "none",
        bytes: bytes.length,
        content: bytes,
        value: parsed.value,
      };
    }
    return {
      res: record(step, started, obtained.verdict, { path, ...fromObtained(obtained), location: path }),
      obtained,
      identity: path,
      origin,
    };
  }

  /** One reference in any of ADR 38's three forms, under its field's rules. */
  async function resolveRef(step: Step): Promise<Outcome> {
    const started = now();
    const form = refForm(step.ref);
    const fail = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Outcome => ({
      res: record(step, started, verdict, extra),
      obtained: null,
      identity: null,
      origin: null,
    });
    if (form === "url") {
      if (step.spec.executable) {
        return fail(
          refuse(
            "executable-url",
            `${step.field} must be a local path: scripts and configuration are never fetched from a URL (ADR 38, Option C)`,
            "resolver",
          ),
        );
      }
      const pinned = parsePinnedUrl(step.ref);
      if (!pinned.ok) return fail(pinned.verdict, { url: pinned.url });
      return remote(step, started, pinned.url, pinned.pin);
    }
    if (/[\\\u0000]/.test(step.ref))
      return fail(refuse("path-outside-base", `${step.field}: a backslash or NUL in a path is refused`, "resolver"));
    const origin = step.origin;
    if (origin === null || origin.kind === "local") {
      const base = origin?.base ?? "/";
      const path = form === "absolute" ? normalizePath(step.ref) : joinPath(base, step.ref);
      if (form === "relative" && !isWithin(base, path))
        return fail(refuse("path-outside-base", `${step.ref} resolves to ${path}, outside the .fullsend base ${base}`, "resolver"), {
          path,
        });
      return localResource(step, started, path, origin ?? { kind: "local", base });
    }
    // A relative reference inside a URL-sourced harness or base: same origin, under its base URL.
    if (form === "absolute") {
      return fail(
        refuse(
          "path-outside-base",
          `${step.ref} is an absolute path in a harness fetched from ${origin.base}; it would read this host's files`,
          "resolver",
        ),
      );
    }
    if (/[%?#]/.test(step.ref))
      return fail(
        refuse(
          "path-outside-base",
          `${step.ref}: escapes, queries and fragments are refused in relative references under a URL base`,
          "resolver",
        ),
      );
    let url = new URL(step.ref, origin.base).href;
    if (!url.startsWith(origin.base))
      return fail(refuse("path-outside-base", `${step.ref} resolves to ${url}, outside the base ${origin.base}`, "resolver"), { url });
    if (step.spec.shape === "directory") {
      const tree = treeUrlOfRaw(url);
      if (tree === null)
        return fail(
          refuse("invalid-harness", `${url} is a directory under a non-forge URL base; HTTP has no directory listing (ADR 38)`, "resolver"),
          { url },
        );
      url = tree;
    }
    return remote(step, started, url, null);
  }

  /** The transitive closure of a skill: its SKILL.md frontmatter `dependencies:`. */
  async function closure(outcome: Outcome, step: Step): Promise<void> {
    const value = outcome.obtained?.value as { data?: { dependencies?: unknown } } | undefined;
    const deps = value?.data?.dependencies;
    if (step.spec.directory !== "skill" || !Array.isArray(deps) || outcome.identity === null) return;
    expected += deps.length;
    for (const [j, dep] of (deps as string[]).entries()) {
      const field = `${step.field}.dependencies[${j}]`;
      const spec = specForDependency(dep);
      const next: Step = {
        field,
        ref: dep,
        spec,
        origin: outcome.origin,
        depth: step.depth + 1,
        parent: outcome.res.id,
        chain: [...step.chain, outcome.identity],
      };
      if (outcome.origin === null && refForm(dep) !== "url") {
        record(
          next,
          now(),
          refuse("invalid-harness", `${field}: a skill fetched from a URL may only depend on pinned URLs, not ${dep}`, "resolver"),
          {},
        );
        continue;
      }
      const child = await resolveRef(next);
      if (child.res.verdict.allowed) await closure(child, next);
    }
  }

  /** The harness or one of its bases: fetched or read, parsed, schema-checked, allowlist-checked. */
  async function loadLayer(step: Step, isRoot: boolean): Promise<{ outcome: Outcome; layer: Layer | null }> {
    let outcome: Outcome;
    if (isRoot && refForm(step.ref) !== "url") {
      const started = now();
      const path = normalizePath(step.ref.startsWith("/") ? step.ref : `/${step.ref}`);
      const base = options.base !== undefined ? normalizePath(options.base) : baseOfHarnessPath(path);
      outcome = await localResource(step, started, path, { kind: "local", base });
    } else {
      outcome = await resolveRef(step);
    }
    if (!outcome.res.verdict.allowed || !outcome.obtained) return { outcome, layer: null };
    const parsed = parseHarness(outcome.obtained.value);
    if (!parsed.ok) {
      outcome.res.verdict = parsed.verdict;
      lint({ field: parsed.field, severity: "error", code: "invalid-harness", message: parsed.verdict.reason });
      return { outcome, layer: null };
    }
    const origin: Origin =
      outcome.res.url !== null
        ? { kind: "remote", base: remoteBaseOf(outcome.res.url) }
        : isRoot
          ? (outcome.origin as Origin)
          : { kind: "local", base: step.origin?.kind === "local" ? step.origin.base : baseOfHarnessPath(outcome.res.path ?? "/") };
    // ADR 38 resolved question 1: harness-level entries must be under org entries, before any fetch.
    const entries = parsed.value.allowed_remote_resources ?? [];
    const layerEntries: AllowlistEntry[] = [];
    const prefix = step.resource === "base" ? `${step.field}.` : "";
    for (const [i, raw] of entries.entries()) {
      const entry = parseAllowlistEntry(raw);
      const field = `${prefix}allowed_remote_resources[${i}]`;
      const allowStep: Step = { ...step, field, ref: raw, parent: outcome.res.id, depth: step.depth, resource: "allowlist" };
      if (!entry.ok) {
        record(allowStep, now(), refuse("invalid-harness", `${field}: ${entry.reason}`, "resolver"), {});
        return { outcome, layer: null };
      }
      const notSubset = checkSubset([entry.entry], org, field);
      if (notSubset) {
        record(allowStep, now(), { ...notSubset, reason: notSubset.reason.replace(`${field}[0]`, field) }, {});
        return { outcome, layer: null };
      }
      layerEntries.push(entry.entry);
    }
    harnessAllow.push(...layerEntries);
    return { outcome, layer: { doc: parsed.value, origin } };
  }

  // --- the run ---
  progress("start");
  const org: AllowlistEntry[] = [];
  const fail = (error: Verdict): Resolution => {
    progress("failed", error.reason);
    return { run, ok: false, source: options.harness, harness: null, resources, lints, error };
  };
  for (const [i, raw] of (options.orgConfig?.allowed_remote_resources ?? []).entries()) {
    const entry = parseAllowlistEntry(raw);
    if (!entry.ok) return fail(refuse("invalid-harness", `org config allowed_remote_resources[${i}]: ${entry.reason}`, "resolver"));
    org.push(entry.entry);
  }

  const harnessSpec: FieldSpec = { executable: false, shape: "file", content: "yaml-mapping" };
  const root = await loadLayer(
    { field: "harness", ref: options.harness, spec: harnessSpec, origin: null, depth: 0, parent: null, chain: [], resource: "harness" },
    true,
  );
  if (!root.layer) return finish(null);
  const rootId = root.outcome.res.id;
  if (root.outcome.res.sha256 !== null && options.lock) {
    const locked = options.lock.harnesses[lockName];
    if (locked && locked.sha256 !== root.outcome.res.sha256) {
      lint({
        field: "harness",
        severity: "warning",
        code: "lock-stale",
        message: `lock.yaml records ${lockName} at ${locked.sha256}; the harness is now ${root.outcome.res.sha256}`,
      });
    }
  }

  // base: composition, depth ≤ maxBaseDepth, a base seen twice is a cycle.
  const layers: Layer[] = [root.layer];
  const seenLayers = [root.outcome.identity ?? options.harness];
  let current = root.layer;
  let parent = rootId;
  let field = "base";
  while (current.doc.base !== undefined) {
    const depth = layers.length;
    expected++;
    const step: Step = {
      field,
      ref: current.doc.base,
      spec: harnessSpec,
      origin: current.origin,
      depth,
      parent,
      chain: [],
      resource: "base",
    };
    if (depth > limits.maxBaseDepth) {
      record(step, now(), refuse("depth-exceeded", `base: chain is deeper than ${limits.maxBaseDepth}`, "resolver"), {});
      return finish(null);
    }
    const loaded = await loadLayerChecked(step, seenLayers);
    if (!loaded) return finish(null);
    layers.push(loaded.layer);
    seenLayers.push(loaded.identity);
    current = loaded.layer;
    parent = loaded.id;
    field = `${field}.base`;
  }

  const { merged, origins } = mergeLayers(layers);
  const harness = merged as Harness;
  for (const f of ["validation_loop.preflight_check", "preflight_check"]) {
    const command = f === "preflight_check" ? merged.preflight_check : harness.validation_loop?.preflight_check;
    if (typeof command !== "string") continue;
    expected++;
    record(
      { field: f, ref: command, spec: harnessSpec, origin: null, depth: 1, parent: rootId, chain: [], resource: "command" },
      now(),
      allow("a literal sh -c command: never resolved or fetched (ADR 128)", "resolver"),
      {},
    );
    for (const d of lintPreflight(f, command)) lint(d);
  }

  const refs: FieldRef[] = fieldRefs(harness, origins, root.layer.origin);
  expected += refs.length;
  const output = structuredClone(merged);
  for (const ref of refs) {
    const step: Step = {
      field: ref.field,
      ref: ref.ref,
      spec: ref.spec,
      origin: ref.origin,
      depth: 1,
      parent: rootId,
      chain: [root.outcome.identity ?? options.harness],
    };
    const outcome = await resolveRef(step);
    if (outcome.res.verdict.allowed) {
      setAt(output, ref.path, outcome.res.location);
      await closure(outcome, step);
    }
  }
  return finish(options.warm ? null : output);

  async function loadLayerChecked(step: Step, seen: readonly string[]): Promise<{ layer: Layer; identity: string; id: number } | null> {
    const form = refForm(step.ref);
    const identity =
      form === "url"
        ? parsePinnedUrl(step.ref).url
        : step.origin?.kind === "remote"
          ? new URL(step.ref, step.origin.base).href
          : joinPath(step.origin?.base ?? "/", step.ref);
    if (seen.includes(identity)) {
      record(step, now(), refuse("cycle", `base ${identity} appears twice: ${[...seen, identity].join(" → ")}`, "resolver"), {});
      return null;
    }
    const loaded = await loadLayer(step, false);
    if (!loaded.layer) return null;
    return { layer: loaded.layer, identity, id: loaded.outcome.res.id };
  }

  function finish(output: Record<string, unknown> | null): Resolution {
    let error: Verdict | null = null;
    if (misses.length > 0) {
      error = refuse("offline-miss", `offline, and ${misses.length} resource(s) are not in the cache: ${misses.join(", ")}`, "resolver");
    } else {
      const first = resources.find((r) => !r.verdict.allowed);
      if (first) error = { ...first.verdict, reason: `${first.field}: ${first.verdict.reason}` };
    }
    const ok = error === null;
    if (ok)
      progress("done", options.warm ? `cache warmed: ${resources.filter((r) => r.url !== null).length} remote resource(s)` : undefined);
    else progress("failed", error?.reason);
    return { run, ok, source: options.harness, harness: ok ? output : null, resources, lints, error };
  }
}
