import { decodeUtf8Strict, type Sha256, sha256Hex, utf8 } from "../bytes";
import type { Cas } from "../cas";
import { allow, refuse, type Verdict, type VerdictCode } from "../log";
import { type ContentKind, checkContent } from "./content";
import { type FetchLike, fetchGuarded } from "./fetcher";
import { GithubTree, gitBlobSha1, parseGithubTreeUrl, rawFileUrl, selectTreeFiles, treesApiUrl } from "./github";
import type { LocalFiles } from "./local-files";
import { joinPath } from "./paths";
import { checkSkillText, judgeSkillFiles } from "./skill-files";
import { isManifestPath, parseTreeManifest, type TreeFile, treeHash, treeManifest } from "./tree-hash";
import type { ResolveLimits } from "./types";

/** What a directory must contain to be what the field asks for. */
export type DirectoryKind = "skill" | "plugin";

/** The result of getting one resource's bytes, from the cache, the network or local files. */
export interface Obtained {
  verdict: Verdict;
  sha256: string | null;
  cache: "hit" | "miss" | "stale" | "none";
  warning?: string;
  bytes: number;
  fetchedAt?: number;
  /** A file's bytes. */
  content?: Uint8Array;
  /** A directory's files and their bytes. */
  files?: TreeFile[];
  fileBytes?: Map<string, Uint8Array>;
  /** Parsed content (YAML mapping, JSON value, markdown frontmatter) for the caller. */
  value?: unknown;
}

export interface ObtainContext {
  cas: Cas;
  fetch: FetchLike | null;
  offline: boolean;
  digest?: Sha256;
  limits: ResolveLimits;
  clock: () => number;
  /** Called with each URL that offline mode could not serve. */
  onOfflineMiss(url: string): void;
}

const refused = (verdict: Verdict, extra: Partial<Obtained> = {}): Obtained => ({
  verdict,
  sha256: null,
  cache: "none",
  bytes: 0,
  ...extra,
});

export type DirectoryCheck = { ok: true; value: unknown } | { ok: false; code: VerdictCode; reason: string };

/**
 * The gates for a directory: a skill has SKILL.md with frontmatter and follows the skill
 * file rules and text rules (skill-files.ts); a plugin holds a plugin.json object. Run on
 * every directory served, fetched, cached or local.
 */
export function checkDirectory(kind: DirectoryKind, files: Map<string, Uint8Array>): DirectoryCheck {
  const unparsable = (reason: string): DirectoryCheck => ({ ok: false, code: "unparsable", reason });
  if (kind === "skill") {
    const rules = judgeSkillFiles([...files].map(([path, bytes]) => ({ path, size: bytes.length })));
    if (rules) return { ok: false, code: rules.code, reason: rules.reason };
    const text = checkSkillText(files);
    if (text) return { ok: false, code: text.code, reason: text.reason };
    const fm = checkContent(files.get("SKILL.md")!, "markdown");
    if (!fm.ok) return unparsable(`SKILL.md: ${fm.reason}`);
    const deps = (fm.value as { data: Record<string, unknown> }).data.dependencies;
    if (deps !== undefined && !(Array.isArray(deps) && deps.every((d) => typeof d === "string"))) {
      return unparsable("SKILL.md frontmatter dependencies must be a list of references");
    }
    return fm;
  }
  const manifest = files.get(".claude-plugin/plugin.json") ?? files.get("plugin.json");
  if (!manifest) return unparsable("a plugin directory must hold plugin.json or .claude-plugin/plugin.json");
  const json = checkContent(manifest, "json");
  if (!json.ok) return unparsable(`plugin.json: ${json.reason}`);
  if (typeof json.value !== "object" || json.value === null || Array.isArray(json.value))
    return unparsable("plugin.json is not a JSON object");
  return json;
}

/**
 * The pins a resource may be served under, preferred first (a run prefers the lock
 * file's entries). A pinned reference whose lock entry differs is tried under the
 * lock's hash first, then its own; bytes matching neither are `hash-mismatch`. An unpinned
 * one is looked up under the lock's hash but, fetched, accepted whatever it hashes to (with a
 * stale-lock warning when that differs). `verify` is null for an unpinned reference.
 */
export function pinsOf(pin: string | null, lockSha: string | null): { keys: string[]; verify: string[] | null } {
  if (pin === null) return { keys: lockSha === null ? [] : [lockSha], verify: null };
  const keys = lockSha !== null && lockSha !== pin ? [lockSha, pin] : [pin];
  return { keys, verify: keys };
}

/** A cached directory: the manifest under the tree hash, then every file re-verified. */
async function readCachedDirectory(
  cas: Cas,
  sha256: string,
): Promise<{ files: TreeFile[]; fileBytes: Map<string, Uint8Array> } | { corrupt: Verdict } | null> {
  const manifest = await cas.get(sha256);
  if (manifest.status === "corrupt") return { corrupt: manifest.verdict };
  if (manifest.status === "miss") return null;
  const files = parseTreeManifest(decodeUtf8Strict(manifest.bytes) ?? "");
  if (files === null) return null;
  const fileBytes = new Map<string, Uint8Array>();
  for (const file of files) {
    const read = await cas.get(file.sha256);
    if (read.status === "corrupt") return { corrupt: read.verdict };
    if (read.status === "miss") return null;
    fileBytes.set(file.path, read.bytes);
  }
  return { files, fileBytes };
}

async function readCachedFile(cas: Cas, sha256: string): Promise<Uint8Array | { corrupt: Verdict } | null> {
  const read = await cas.get(sha256);
  if (read.status === "hit") return read.bytes;
  return read.status === "corrupt" ? { corrupt: read.verdict } : null;
}

const totalBytes = (m: Map<string, Uint8Array>) => [...m.values()].reduce((n, b) => n + b.length, 0);

/**
 * A remote file: the cache by pin (or the lock's hash), else — unless offline — a
 * guarded fetch, the pin checked on the bytes, the parse gate, then the cache. Unpinned
 * same-origin resources fall back to the URL index when offline or on a transient error.
 */
export async function obtainRemoteFile(
  ctx: ObtainContext,
  url: string,
  pin: string | null,
  lockSha: string | null,
  kind: ContentKind,
): Promise<Obtained> {
  const { keys, verify } = pinsOf(pin, lockSha);
  let warning: string | undefined;
  const served = (bytes: Uint8Array, sha256: string, cache: Obtained["cache"], extra: Partial<Obtained> = {}): Obtained => {
    const parsed = checkContent(bytes, kind);
    if (!parsed.ok) return refused(refuse("unparsable", `${url}: ${parsed.reason}`, "resolver"), { sha256, cache, bytes: bytes.length });
    const out: Obtained = {
      verdict: allow(`${cache === "miss" ? "fetched" : "cached"} and verified`, "resolver"),
      sha256,
      cache,
      bytes: bytes.length,
      content: bytes,
      value: parsed.value,
      ...extra,
    };
    if (warning !== undefined) out.warning = warning;
    return out;
  };
  for (const key of keys) {
    const cached = await readCachedFile(ctx.cas, key);
    if (cached instanceof Uint8Array) return served(cached, key, "hit");
    if (cached !== null) warning = `${cached.corrupt.reason}; fetching again`;
  }
  const fromIndex = async (why: string): Promise<Obtained | null> => {
    if (pin !== null) return null;
    const record = await ctx.cas.lookupUrl(url);
    if (record === null) return null;
    const bytes = await readCachedFile(ctx.cas, record.sha256);
    if (!(bytes instanceof Uint8Array)) return null;
    warning = why;
    return served(bytes, record.sha256, "stale", { fetchedAt: record.fetchedAt });
  };
  if (ctx.offline || ctx.fetch === null) {
    const stale = await fromIndex("offline: served from the URL index (unpinned)");
    if (stale) return stale;
    ctx.onOfflineMiss(url);
    return refused(refuse("offline-miss", `${url} is not in the cache and the network is off`, "resolver"), { cache: "miss" });
  }
  const fetched = await fetchGuarded(url, ctx.fetch, { maxBytes: ctx.limits.maxFileBytes, timeoutMs: ctx.limits.timeoutMs });
  if (!fetched.ok) {
    if (fetched.transient) {
      const stale = await fromIndex(`stale cache used: ${fetched.verdict.reason}`);
      if (stale) return stale;
    }
    return refused(fetched.verdict, { cache: "miss" });
  }
  const sha256 = await sha256Hex(fetched.bytes, ctx.digest);
  if (verify !== null && !verify.includes(sha256)) {
    return refused(
      refuse(
        "hash-mismatch",
        `${url} hashes to ${sha256}, but its pin is ${verify.join(" (or ")}${verify.length > 1 ? ")" : ""}`,
        "resolver",
      ),
      {
        sha256,
        cache: "miss",
        bytes: fetched.bytes.length,
      },
    );
  }
  const result = served(fetched.bytes, sha256, "miss", { fetchedAt: ctx.clock() });
  if (!result.verdict.allowed) return result;
  await ctx.cas.put(fetched.bytes, { url });
  if (pin === null && lockSha !== null && lockSha !== sha256)
    result.warning = `lock.yaml is stale: it pins ${lockSha}, the URL now serves ${sha256}`;
  return result;
}

/**
 * A remote directory (a skill is a forge directory pinned by its tree hash) through the GitHub trees API and
 * raw.githubusercontent.com: each file's git blob id checked, then the tree hash against the pin.
 */
export async function obtainRemoteDirectory(
  ctx: ObtainContext,
  url: string,
  pin: string | null,
  lockSha: string | null,
  kind: DirectoryKind,
): Promise<Obtained> {
  const { keys, verify } = pinsOf(pin, lockSha);
  let warning: string | undefined;
  const served = (
    files: TreeFile[],
    fileBytes: Map<string, Uint8Array>,
    sha256: string,
    cache: Obtained["cache"],
    fetchedAt?: number,
  ): Obtained => {
    const gate = checkDirectory(kind, fileBytes);
    if (!gate.ok) return refused(refuse(gate.code, `${url}: ${gate.reason}`, "resolver"), { sha256, cache });
    const out: Obtained = {
      verdict: allow(`${cache === "miss" ? "fetched" : "cached"} and verified (${files.length} files)`, "resolver"),
      sha256,
      cache,
      bytes: totalBytes(fileBytes),
      files,
      fileBytes,
      value: gate.value,
    };
    if (fetchedAt !== undefined) out.fetchedAt = fetchedAt;
    if (warning !== undefined) out.warning = warning;
    return out;
  };
  for (const key of keys) {
    const cached = await readCachedDirectory(ctx.cas, key);
    if (cached && "files" in cached) return served(cached.files, cached.fileBytes, key, "hit");
    if (cached) warning = `${cached.corrupt.reason}; fetching again`;
  }
  /** An unpinned directory from the URL index (offline, or the network failed transiently). */
  const fromIndex = async (why: string): Promise<Obtained | null> => {
    if (pin !== null) return null;
    const record = await ctx.cas.lookupUrl(url);
    const cached = record ? await readCachedDirectory(ctx.cas, record.sha256) : null;
    if (!record || !cached || !("files" in cached)) return null;
    warning = why;
    return served(cached.files, cached.fileBytes, record.sha256, "stale", record.fetchedAt);
  };
  /** A failed fetch: a transient one falls back to the stale directory, any other failure fails. */
  const failed = async (outcome: { verdict: Verdict; transient: boolean }): Promise<Obtained> => {
    const stale = outcome.transient ? await fromIndex(`stale cache used: ${outcome.verdict.reason}`) : null;
    return stale ?? refused(outcome.verdict, { cache: "miss" });
  };
  if (ctx.offline || ctx.fetch === null) {
    const stale = await fromIndex("offline: served from the URL index (unpinned)");
    if (stale) return stale;
    ctx.onOfflineMiss(url);
    return refused(refuse("offline-miss", `${url} is not in the cache and the network is off`, "resolver"), { cache: "miss" });
  }
  const tree = parseGithubTreeUrl(url);
  if (tree === null) {
    return refused(
      refuse(
        "invalid-harness",
        `${url} is not a https://github.com/OWNER/REPO/tree/REF/PATH directory URL; HTTP has no directory listing`,
        "resolver",
      ),
    );
  }
  const fetch = ctx.fetch;
  const limits = { maxBytes: ctx.limits.maxFileBytes, timeoutMs: ctx.limits.timeoutMs };
  const listingUrl = treesApiUrl(tree);
  const listing = await fetchGuarded(listingUrl, fetch, limits);
  if (!listing.ok) return failed(listing);
  let json: unknown;
  try {
    json = JSON.parse(decodeUtf8Strict(listing.bytes) ?? "");
  } catch {
    return refused(refuse("unparsable", `${listingUrl} is not JSON`, "resolver"), { cache: "miss" });
  }
  const parsedTree = GithubTree.safeParse(json);
  if (!parsedTree.success) return refused(refuse("unparsable", `${listingUrl} is not a git trees listing`, "resolver"), { cache: "miss" });
  const selection = selectTreeFiles(parsedTree.data, tree.path, {
    maxFiles: ctx.limits.maxDirectoryFiles,
    maxTotalBytes: ctx.limits.maxDirectoryBytes,
  });
  if (!selection.ok) return refused(refuse(selection.code, `${url}: ${selection.reason}`, "resolver"), { cache: "miss" });
  if (kind === "skill") {
    const rules = judgeSkillFiles(selection.files.map((f) => ({ path: f.path, size: f.size })));
    if (rules) return refused({ ...rules, reason: `${url}: ${rules.reason}` }, { cache: "miss" });
  }
  const files: TreeFile[] = [];
  const fileBytes = new Map<string, Uint8Array>();
  for (const entry of selection.files) {
    if (!isManifestPath(entry.path))
      return refused(refuse("payload-path-refused", `${url}: ${JSON.stringify(entry.path)} is not a safe path`, "resolver"), {
        cache: "miss",
      });
    const fileUrl = rawFileUrl(tree, entry.path);
    const got = await fetchGuarded(fileUrl, fetch, { ...limits, maxBytes: Math.min(ctx.limits.maxFileBytes, entry.size) });
    if (!got.ok) return failed(got);
    if ((await gitBlobSha1(got.bytes)) !== entry.blobSha) {
      return refused(refuse("hash-mismatch", `${fileUrl} does not match git blob ${entry.blobSha} from the listing`, "resolver"), {
        cache: "miss",
      });
    }
    files.push({ path: entry.path, sha256: await sha256Hex(got.bytes, ctx.digest) });
    fileBytes.set(entry.path, got.bytes);
  }
  const manifest = utf8(treeManifest(files));
  const sha256 = await treeHash(files, ctx.digest);
  if (verify !== null && !verify.includes(sha256)) {
    return refused(
      refuse(
        "hash-mismatch",
        `${url} has tree hash ${sha256}, but its pin is ${verify.join(" (or ")}${verify.length > 1 ? ")" : ""}`,
        "resolver",
      ),
      {
        sha256,
        cache: "miss",
        bytes: totalBytes(fileBytes),
      },
    );
  }
  const result = served(files, fileBytes, sha256, "miss", ctx.clock());
  if (!result.verdict.allowed) return result;
  for (const file of files) await ctx.cas.put(fileBytes.get(file.path)!, { url: rawFileUrl(tree, file.path) });
  await ctx.cas.put(manifest, { url });
  if (pin === null && lockSha !== null && lockSha !== sha256)
    result.warning = `lock.yaml is stale: it pins ${lockSha}, the URL now serves ${sha256}`;
  return result;
}

/**
 * Walks a local directory: regular files only, capped in count and size. A `.git` directory
 * (at any depth) is left out of the tree and named in `skipped`, so a pin taken in a working
 * copy equals the pin of the same tree fetched from its forge; a directory with no files
 * left cannot be pinned.
 */
export async function walkLocalDirectory(
  local: LocalFiles,
  dir: string,
  limits: ResolveLimits,
): Promise<{ ok: true; fileBytes: Map<string, Uint8Array>; skipped: string[] } | { ok: false; verdict: Verdict }> {
  const fileBytes = new Map<string, Uint8Array>();
  const skipped: string[] = [];
  let total = 0;
  const top = await local.list(dir);
  if (top === null) return { ok: false, verdict: refuse("fetch-failed", `no such local directory ${dir}`, "resolver") };
  const pending: { rel: string; entries: typeof top }[] = [{ rel: "", entries: top }];
  while (pending.length > 0) {
    const { rel, entries } = pending.pop()!;
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (!isManifestPath(path))
        return { ok: false, verdict: refuse("payload-path-refused", `${JSON.stringify(path)} is not a safe path`, "resolver") };
      if (entry.kind === "symlink")
        return { ok: false, verdict: refuse("payload-path-refused", `${path} is a symlink; symlinks are refused`, "resolver") };
      if (entry.kind === "other")
        return { ok: false, verdict: refuse("payload-path-refused", `${path} is not a regular file`, "resolver") };
      if (entry.kind === "directory" && entry.name === ".git") {
        skipped.push(`${path}/`);
        continue;
      }
      if (entry.kind === "directory") {
        const children = await local.list(joinPath(dir, path));
        if (children !== null) pending.push({ rel: path, entries: children });
        continue;
      }
      const bytes = await local.read(joinPath(dir, path));
      if (bytes === null) return { ok: false, verdict: refuse("fetch-failed", `${path} vanished while reading ${dir}`, "resolver") };
      total += bytes.length;
      fileBytes.set(path, bytes);
      if (fileBytes.size > limits.maxDirectoryFiles)
        return { ok: false, verdict: refuse("too-large", `${dir} has more than ${limits.maxDirectoryFiles} files`, "resolver") };
      if (total > limits.maxDirectoryBytes)
        return { ok: false, verdict: refuse("too-large", `${dir} holds more than ${limits.maxDirectoryBytes} bytes`, "resolver") };
    }
  }
  if (fileBytes.size === 0)
    return {
      ok: false,
      verdict: refuse(
        "unparsable",
        `${dir} holds no files${skipped.length ? " besides .git/" : ""}; an empty directory cannot be pinned`,
        "resolver",
      ),
    };
  return { ok: true, fileBytes, skipped };
}

/** The pin a reference to this local file or directory must carry (`npx tab pin`). */
export async function pinOfLocal(
  local: LocalFiles,
  path: string,
  limits: ResolveLimits,
  digest?: Sha256,
): Promise<{ ok: true; sha256: string; kind: "file" | "directory" } | { ok: false; verdict: Verdict }> {
  const entries = await local.list(path);
  if (entries === null) {
    const bytes = await local.read(path);
    if (bytes === null) return { ok: false, verdict: refuse("fetch-failed", `no such file or directory ${path}`, "resolver") };
    return { ok: true, sha256: await sha256Hex(bytes, digest), kind: "file" };
  }
  const walked = await walkLocalDirectory(local, path, limits);
  if (!walked.ok) return walked;
  const files: TreeFile[] = [];
  for (const [p, bytes] of walked.fileBytes) files.push({ path: p, sha256: await sha256Hex(bytes, digest) });
  return { ok: true, sha256: await treeHash(files, digest), kind: "directory" };
}
