import { sha256Hex, utf8 } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import { checkRemoteUrl } from "./address";
import { type AllowlistEntry, checkAllowlisted } from "./allowlist";
import { type ContentKind, checkContent } from "./content";
import type { Origin } from "./fields";
import { checkDirectory, type ObtainContext, type Obtained, obtainRemoteDirectory, obtainRemoteFile, walkLocalDirectory } from "./obtain";
import { isWithin, joinPath, normalizePath } from "./paths";
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
  /** A local origin for a local resource's own relative references. */
  origin: Origin | null;
}

/** The allowlists in force: the org's, and the entries each loaded layer added (ADR 38). */
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
 * One reference → one node (ADR 38): the three reference forms under their field's rules,
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
    const { allowlists, walk, lockPins, obtain, record } = this.ctx;
    const fail = (verdict: Verdict): Outcome =>
      this.outcome(step, started, verdict, { url, pin }, { obtained: null, identity: url, origin: null });
    const bad = checkRemoteUrl(url);
    if (bad) return fail(bad);
    const listed = checkAllowlisted(url, allowlists.org, allowlists.harness);
    if (!listed.allowed) return fail(listed);
    const beyond = walk.admitRemote(step, url, pin);
    if (beyond) return fail(beyond);
    const lockSha = lockPins.get(url) ?? null;
    let lockWarning: string | undefined;
    if (pin !== null && lockSha !== null && lockSha !== pin) {
      lockWarning = `lock.yaml is stale: it pins ${lockSha}, the harness pins ${pin}`;
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
    return this.outcome(step, started, obtained.verdict, { url, pin, ...extra }, { obtained, identity: url, origin: null });
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
    let obtained: Obtained;
    if (step.spec.shape === "directory") {
      const walked = await walkLocalDirectory(local, path, this.ctx.obtain.limits);
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
        sha256: await treeHash(files, digest),
        cache: "none",
        bytes,
        files,
        fileBytes: walked.fileBytes,
        value: gate.value,
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
    return this.outcome(step, started, obtained.verdict, extra, { obtained, identity: path, origin });
  }

  /** One reference in any of ADR 38's three forms, under its field's rules. */
  async resolve(step: Step): Promise<Outcome> {
    const started = now();
    const form = refForm(step.ref);
    const fail = (verdict: Verdict, extra: Partial<ResolvedResource> = {}): Outcome =>
      this.outcome(step, started, verdict, extra, { obtained: null, identity: null, origin: null });
    const outside = (reason: string, extra: Partial<ResolvedResource> = {}): Outcome =>
      fail(refuse("path-outside-base", reason, "resolver"), extra);
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
      return this.remote(step, started, pinned.url, pinned.pin);
    }
    if (/[\\\u0000]/.test(step.ref)) return outside(`${step.field}: a backslash or NUL in a path is refused`);
    const origin = step.origin;
    if (origin === null || origin.kind === "local") {
      const base = origin?.base ?? "/";
      const path = form === "absolute" ? normalizePath(step.ref) : joinPath(base, step.ref);
      if (form === "relative" && !isWithin(base, path))
        return outside(`${step.ref} resolves to ${path}, outside the .fullsend base ${base}`, { path });
      return this.local(step, started, path, origin ?? { kind: "local", base });
    }
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
        return fail(
          refuse("invalid-harness", `${url} is a directory under a non-forge URL base; HTTP has no directory listing (ADR 38)`, "resolver"),
          { url },
        );
      url = tree;
    }
    return this.remote(step, started, url, null);
  }
}
