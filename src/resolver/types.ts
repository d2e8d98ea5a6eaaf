import { z } from "zod";
import type { Sha256 } from "../bytes";
import type { Cas } from "../cas";
import type { EventLog, Verdict } from "../log";
import type { Clock } from "../platform";
import type { FetchLike } from "./fetcher";
import type { LocalFiles } from "./local-files";
import type { LintDiagnostic } from "./preflight";
import type { OrgConfig } from "./schema";
import type { TreeFile } from "./tree-hash";

/** The caps on the closure (depths, breadth) and on what it fetches (sizes). */
export interface ResolveLimits {
  maxDepth: number;
  maxBaseDepth: number;
  /** Breadth as the reference counts it: the dependencies one resource may list. */
  maxDependencies: number;
  /** A per-harness total of distinct remote URLs besides the harness (this resolver's addition). */
  maxRemoteResources: number;
  maxFileBytes: number;
  maxDirectoryFiles: number;
  maxDirectoryBytes: number;
  timeoutMs: number;
}

export const DEFAULT_LIMITS: ResolveLimits = {
  maxDepth: 10,
  maxBaseDepth: 5,
  maxDependencies: 50,
  maxRemoteResources: 500,
  maxFileBytes: 5 * 1024 * 1024,
  maxDirectoryFiles: 200,
  maxDirectoryBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
};

export interface ResolveOptions {
  /** A local path (absolute, in `local`) or an `https://…#sha256=…` URL. */
  harness: string;
  /** Local files: required for a local harness; a URL harness never reads them. */
  local?: LocalFiles;
  cas: Cas;
  /** Absent, or `offline: true`, means no network at all. */
  fetch?: FetchLike;
  log?: EventLog;
  digest?: Sha256;
  clock?: Clock;
  /** The org-level config.yaml (its `allowed_remote_resources`); none means an empty allowlist. */
  orgConfig?: OrgConfig | null;
  /** `--base DIR`: the `.fullsend` base of a local harness (default: the directory holding harness/). */
  base?: string;
  offline?: boolean;
  /** Cache warm: fetch everything the harness needs, produce no harness. */
  warm?: boolean;
  lock?: LockFile | null;
  /** The harness's name in the lock file (default: its file name without extension). */
  lockName?: string;
  limits?: Partial<ResolveLimits>;
  /** An id for the run (default: a random UUID). */
  runId?: string;
}

/** One node of the resolution tree: what the Resolver panel shows per resource. */
export interface ResolvedResource {
  id: number;
  parent: number | null;
  depth: number;
  field: string;
  ref: string;
  refKind: "absolute" | "relative" | "url" | "command";
  resource: "harness" | "base" | "file" | "directory" | "command" | "allowlist";
  /** The fetched URL for a remote resource (pin fragment removed). */
  url: string | null;
  /** The local path for a local resource. */
  path: string | null;
  pin: string | null;
  /** sha256 of the content (the tree hash for a directory). */
  sha256: string | null;
  files?: TreeFile[];
  cache: "hit" | "miss" | "stale" | "none";
  verdict: Verdict;
  warning?: string;
  bytes: number;
  fetchedAt?: number;
  durationMs: number;
  /** Where the host finds it: a local path, or `cas.locate(sha256)`. */
  location: string | null;
}

export interface Resolution {
  run: string;
  ok: boolean;
  /** The harness reference as given. */
  source: string;
  /** The merged harness with resolved fields rewritten to locations; null on failure or warm. */
  harness: Record<string, unknown> | null;
  resources: ResolvedResource[];
  lints: LintDiagnostic[];
  /** A run-level refusal: the first refusal, or `offline-miss` listing every missing resource. */
  error: Verdict | null;
}

const LockSha = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex");

export interface LockDependency {
  field: string;
  url: string;
  sha256: string;
  type: "file" | "directory";
  fetched_at: string;
  files?: { path: string; sha256: string }[];
  transitive_deps?: LockDependency[];
}

const LockDependency: z.ZodType<LockDependency> = z.lazy(() =>
  z.object({
    field: z.string(),
    url: z.string(),
    sha256: LockSha,
    type: z.enum(["file", "directory"]),
    fetched_at: z.string(),
    files: z.array(z.object({ path: z.string(), sha256: LockSha })).optional(),
    transitive_deps: z.array(LockDependency).optional(),
  }),
);

/** `.fullsend/lock.yaml`, version 1: every resource of the closure with its URL and hash. */
export const LockFile = z.object({
  version: z.literal(1),
  generated_at: z.string(),
  harnesses: z.record(
    z.string(),
    z.object({
      source: z.string(),
      sha256: LockSha,
      resolved_at: z.string(),
      dependencies: z.array(LockDependency).default([]),
    }),
  ),
});
export type LockFile = z.infer<typeof LockFile>;
