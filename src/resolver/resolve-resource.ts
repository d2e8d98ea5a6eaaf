import { sha256Hex, utf8 } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import { checkPort, checkRemoteUrl } from "./address";
import { type AllowlistEntry, checkAllowlisted } from "./allowlist";
import { type ContentKind, checkContent } from "./content";
import type { Origin } from "./fields";
import { parseGithubTreeUrl } from "./github";
import { checkDirectory, type ObtainContext, type Obtained, obtainRemoteDirectory, obtainRemoteFile, walkLocalDirectory } from "./obtain";
import { isWithin, joinPath, resolveDotSegments } from "./paths";
import { parsePinnedUrl, refForm } from "./reference";
import { now, type RunRecord, type Step } from "./run-record";
import { type TreeFile, treeHash, treeManifest } from "./tree-hash";
import type { ResolvedResource, ResolveOptions } from "./types";
import type { WalkLimits } from "./walk-limits";

/** One resolved node, with what the walk needs to go on from it. */
export interface Outcome {
  res: ResolvedResource;
  obtained: Obtained | null;
  /** The URL or path that identifies it on a chain (cycles); null when refused before one was known. */
  identity: string | null;
  /** Where its own relative references resolve: a local base, or a remote skill's directory URL. */
  origin: Origin | null;
  /** True when this is a second reference to a node already resolved (a diamond): no new node. */
  shared?: boolean;
}

/**
 * What one reference will be, decided without any I/O: a URL to fetch, a path to read, or a
 * refusal. `resolveHarness` plans every field of the harness before the first request.
 */
export type Plan =
  | { kind: "remote"; url: string; pin: string | null }
  | { kind: "local"; path: string; origin: Origin }
  | { kind: "refused"; verdict: Verdict; extra: Partial<ResolvedResource> };

/** The allowlists in force: the org's, and the entries each loaded layer added. */
export interface Allowlists {
  org: readonly AllowlistEntry[];
  harness: AllowlistEntry[];
}

export interface ResourceContext {
  options: Pick<ResolveOptions, "cas" | "local" | "digest">;
  record: RunRecord;
  walk: WalkLimits;
  allowlists: Allowlists;
  obtain: ObtainContext;
  /** The lock file's hashes by URL: the pin of an unpinned resource. */
  lockPins: ReadonlyMap<string, string>;
}

/** `https://raw.githubusercontent.com/O/R/REF/p` → `https://github.com/O/R/tree/REF/p` (listable). */
function treeUrlOfRaw(url: string): string | null {
  const u = new URL(url);
  if (u.host !== "raw.githubusercontent.com") return null;
  const [, owner, repo, ref, ...rest] = u.pathname.replace(/\/$/, "").split("/");
  if (!owner || !repo || !ref) return null;
  return `https://github.com/${owner}/${repo}/tree/${ref}${rest.length ? `/${rest.join("/")}` : ""}`;
}

/** The content gate for a step: a harness or base is a YAML mapping, other fields say theirs. */
const contentOf = (step: Step): ContentKind =>
  step.resource === "harness" || step.resource === "base" ? "yaml-mapping" : step.spec.content;

/**
 * One reference → one node (docs/decisions/0001-harness-resources-by-url-and-path.md): the three reference forms under their field's rules,
 * the allowlists, the walk's limits, pins (the harness's or the lock's), then the bytes from
 * the cache, the network or the local files, each recorded as one `resolver.step`.
 */
export class ResourceResolver {
  constructor(private readonly ctx: ResourceContext) {}

  /** Records a node and wraps it as the walk's outcome. */
  private outcome(
    step: Step,
    started: number,
    verdict: Verdict,
    extra: Partial<ResolvedResource>,
    from: Pick<Outcome, "obtained" | "identity" | "origin">,
  ): Outcome {
    return { res: this.ctx.record.record(step, started, verdict, extra), ...from };
  }

  private fromObtained(o: Obtained): Partial<ResolvedResource> {
    return {
      sha256: o.sha256,
      cache: o.cache,
      bytes: o.bytes,
      location: o.sha256 !== null && o.verdict.allowed ? this.ctx.options.cas.locate(o.sha256) : null,
      ...(o.files ? { files: o.files } : {}),
      ...(o.warning !== undefined ? { warning: o.warning } : {}),
      ...(o.fetchedAt !== undefined ? { fetchedAt: o.fetchedAt } : {}),
    };
  }

  private async remote(step: Step, started: number, url: string, pin: string | null): Promise<Outcome> {
    const { walk, lockPins, obtain, record } = this.ctx;
    const fail = (verdict: Verdict): Outcome =>
      this.outcome(step, started, verdict, { url, pin }, { obtained: null, identity: url, origin: null });
    const beyond = walk.admitRemote(step, url, pin);
    if (beyond) return fail(beyond);
    const seen = this.shared(step, url);
    if (seen) return seen;
    const lockSha = lockPins.get(url) ?? null;
    let lockWarning: string | undefined;
    if (pin !== null && lockSha !== null && lockSha !== pin) {
      lockWarning = `lock.yaml is stale: it pins ${lockSha}, the harness pins ${pin}; the lock's entry is preferred — run lock again`;
      record.lint({ field: step.field, severity: "warning", code: "lock-stale", message: lockWarning });
    }
    const obtained =
      step.spec.shape === "directory"
        ? await obtainRemoteDirectory(obtain, url, pin, lockSha, step.spec.directory ?? "skill")
        : await obtainRemoteFile(obtain, url, pin, lockSha, contentOf(step));
    const extra = this.fromObtained(obtained);
    if (lockWarning !== undefined && extra.warning === undefined) extra.warning = lockWarning;
    if (obtained.warning?.startsWith("lock.yaml is stale"))
      record.lint({ field: step.field, severity: "warning", code: "lock-stale", message: obtained.warning });
    const origin: Origin | null = step.spec.shape === "directory" ? { kind: "tree", base: url } : null;
    return this.remember(this.outcome(step, started, obtained.verdict, { url, pin, ...extra }, { obtained, identity: url, origin }));
  }

  /**
   * Dependencies already resolved, by URL or path: a dependency reached twice (a diamond: two
   * skills depending on one) is one node, resolved once. A harness field naming the same URL
   * keeps its own node, so each field still shows (and locks) what it names.
   */
  private readonly resolved = new Map<string, Outcome>();

  private remember(outcome: Outcome): Outcome {
    const dependency = outcome.res.field.includes(".dependencies[");
    if (dependency && outcome.identity !== null && outcome.res.verdict.allowed && !this.resolved.has(outcome.identity))
      this.resolved.set(outcome.identity, outcome);
    return outcome;
  }

  /** A dependency whose URL or path already is a node: that node, resolved once, not a new one. */
  private shared(step: Step, identity: string): Outcome | null {
    if (!step.field.includes(".dependencies[")) return null;
    const earlier = this.resolved.get(identity);
    return earlier ? { ...earlier, shared: true } : null;
  }

  /** A local file or directory (the harness itself, or a path under a local base). */
  async local(step: Step, started: number, path: string, origin: Origin): Promise<Outcome> {
    const { cas, digest } = this.ctx.options;
    const fail = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Outcome =>
      this.outcome(step, started, verdict, { path, ...extra }, { obtained: null, identity: path, origin });
    const local = this.ctx.options.local;
    if (!local) return fail(refuse("fetch-failed", "no local files were given to read this path from", "resolver"));
    const beyond = this.ctx.walk.admitLocal(step, path);
    if (beyond) return fail(beyond);
    const seen = this.shared(step, path);
    if (seen) return seen;
    let obtained: Obtained;
    if (step.spec.shape === "directory") {
      const walked = await walkLocalDirectory(local, path, this.ctx.obtain.limits);
      if (!walked.ok) return fail(walked.verdict);
      const gate = checkDirectory(step.spec.directory ?? "skill", walked.fileBytes);
      if (!gate.ok) return fail(refuse(gate.code, `${path}: ${gate.reason}`, "resolver"));
      const files: TreeFile[] = [];
      let bytes = 0;
      for (const [p, b] of walked.fileBytes) {
        files.push({ path: p, sha256: await cas.put(b) });
        bytes += b.length;
      }
      await cas.put(utf8(treeManifest(files)));
      obtained = {
        verdict: allow(`local directory (${files.length} files)`, "resolver"),
        sha256: await treeHash(files, digest),
        cache: "none",
        bytes,
        files,
        fileBytes: walked.fileBytes,
        value: gate.value,
        ...(walked.skipped.length > 0 ? { warning: `left out of the tree: ${walked.skipped.join(", ")}` } : {}),
      };
    } else {
      const bytes = await local.read(path);
      if (bytes === null) return fail(refuse("fetch-failed", `no such local file ${path}`, "resolver"));
      const parsed = checkContent(bytes, contentOf(step));
      if (!parsed.ok)
        return fail(refuse("unparsable", `${path}: ${parsed.reason}`, "resolver"), {
          bytes: bytes.length,
          sha256: await sha256Hex(bytes, digest),
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
    const extra = { path, ...this.fromObtained(obtained), location: path };
    return this.remember(this.outcome(step, started, obtained.verdict, extra, { obtained, identity: path, origin }));
  }

  /** One reference in any of the three forms (absolute, relative, pinned URL) under its field's rules: planned, then obtained. */
  resolve(step: Step): Promise<Outcome> {
    const started = now();
    return this.execute(step, started, this.plan(step));
  }

  /** Obtains what `plan` decided (or records its refusal) as one node. */
  async execute(step: Step, started: number, plan: Plan): Promise<Outcome> {
    if (plan.kind === "refused")
      return this.outcome(step, started, plan.verdict, plan.extra, { obtained: null, identity: null, origin: null });
    if (plan.kind === "remote") return this.remote(step, started, plan.url, plan.pin);
    return this.local(step, started, plan.path, plan.origin);
  }

  /**
   * Every rule that needs no I/O, for one reference: executable fields local only, the pin
   * present and well-formed, https spelled exactly, no IP literal or userinfo, the port rule,
   * the allowlists, directories as forge directory URLs inside a repository, relative paths
   * inside their base.
   */
  plan(step: Step): Plan {
    const form = refForm(step.ref);
    const refused = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Plan => ({ kind: "refused", verdict, extra });
    const outside = (reason: string, extra: Partial<ResolvedResource> = {}): Plan =>
      refused(refuse("path-outside-base", reason, "resolver"), extra);
    if (form === "url") {
      if (step.spec.executable) {
        return refused(
          refuse(
            "executable-url",
            `${step.field} must be a local path: scripts and configuration are never fetched from a URL`,
            "resolver",
          ),
        );
      }
      const pinned = parsePinnedUrl(step.ref);
      if (!pinned.ok) return refused(pinned.verdict, { url: pinned.url });
      return this.planRemote(step, pinned.url, pinned.pin);
    }
    if (/[\\\u0000]/.test(step.ref)) return outside(`${step.field}: a backslash or NUL in a path is refused`);
    const origin = step.origin;
    if (origin === null || origin.kind === "local") {
      const base = origin?.base ?? "/";
      const path = form === "absolute" ? resolveDotSegments(step.ref) : joinPath(base, step.ref);
      if (form === "relative" && !isWithin(base, path))
        return outside(`${step.ref} resolves to ${path}, outside the .fullsend base ${base}`, { path });
      return { kind: "local", path, origin: origin ?? { kind: "local", base } };
    }
    if (origin.kind === "tree") return this.planSibling(step, origin.base);
    // A relative reference inside a URL-sourced harness or base: same origin, under its base URL.
    if (form === "absolute")
      return outside(`${step.ref} is an absolute path in a harness fetched from ${origin.base}; it would read this host's files`);
    if (/[%?#]/.test(step.ref))
      return outside(`${step.ref}: escapes, queries and fragments are refused in relative references under a URL base`);
    let url = new URL(step.ref, origin.base).href;
    if (!url.startsWith(origin.base)) return outside(`${step.ref} resolves to ${url}, outside the base ${origin.base}`, { url });
    if (step.spec.shape === "directory") {
      const tree = treeUrlOfRaw(url);
      if (tree === null)
        return refused(
          refuse("invalid-harness", `${url} is a directory under a non-forge URL base; HTTP has no directory listing`, "resolver"),
          { url },
        );
      url = tree;
    }
    return this.planRemote(step, url, null);
  }

  /**
   * A relative dependency of a remote skill (`b#sha256=…`): resolved against the skill's own
   * directory URL, so a sibling under the same pinned tree, pinned like any URL, then through
   * the same allowlist. Nothing may leave `https://github.com/O/R/tree/REF/`.
   */
  private planSibling(step: Step, skillUrl: string): Plan {
    const refused = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Plan => ({ kind: "refused", verdict, extra });
    const outside = (reason: string, extra: Partial<ResolvedResource> = {}): Plan =>
      refused(refuse("path-outside-base", reason, "resolver"), extra);
    const tree = parseGithubTreeUrl(skillUrl);
    if (tree === null) return refused(refuse("invalid-harness", `${skillUrl} is not a forge directory URL`, "resolver"));
    if (refForm(step.ref) === "absolute")
      return outside(`${step.ref} is an absolute path in a skill fetched from ${skillUrl}; it would read this host's files`);
    const pinned = parsePinnedUrl(step.ref);
    if (!pinned.ok) return refused(pinned.verdict);
    if (/[%?#\\]/.test(pinned.url))
      return outside(`${pinned.url}: escapes, queries and fragments are refused in relative references of a remote skill`);
    const root = `https://github.com/${tree.owner}/${tree.repo}/tree/${tree.ref}/`;
    const url = new URL(pinned.url, skillUrl.replace(/\/+$/, "")).href.replace(/\/+$/, "");
    if (!url.startsWith(root) || url.length === root.length)
      return outside(`${step.ref} resolves to ${url}, outside the skill's tree ${root}`, { url });
    if (step.spec.shape === "directory") return this.planRemote(step, url, pinned.pin);
    const file = url.slice(root.length);
    return this.planRemote(step, `https://raw.githubusercontent.com/${tree.owner}/${tree.repo}/${tree.ref}/${file}`, pinned.pin);
  }

  /** The URL rules that need no I/O, in the order a reader would check them. */
  private planRemote(step: Step, url: string, pin: string | null): Plan {
    const { allowlists, lockPins } = this.ctx;
    const refused = (verdict: Verdict): Plan => ({ kind: "refused", verdict, extra: { url, pin } });
    const bad = checkRemoteUrl(url);
    if (bad) return refused(bad);
    const port = checkPort(url, (host, p) => allowlists.org.some((e) => e.key.host === host && e.key.port === p));
    if (port) return refused(port);
    const listed = checkAllowlisted(url, allowlists.org, allowlists.harness);
    if (!listed.allowed) {
      if (lockPins.has(url))
        return refused(
          refuse("not-allowlisted", `${url} is locked in lock.yaml but no longer in allowed_remote_resources — run lock again`, "resolver"),
        );
      return refused(listed);
    }
    if (step.spec.shape === "directory") {
      const tree = parseGithubTreeUrl(url);
      if (tree === null)
        return refused(
          refuse(
            "invalid-harness",
            `${url} is not a https://github.com/OWNER/REPO/tree/REF/PATH directory URL; HTTP has no directory listing`,
            "resolver",
          ),
        );
      if (tree.path === "" && (step.spec.directory ?? "skill") === "skill")
        return refused(
          refuse("invalid-harness", `${url} names the repository root; a skill URL must point to a directory inside the repo`, "resolver"),
        );
    }
    return { kind: "remote", url, pin };
  }
}
