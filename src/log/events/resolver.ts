import { z } from "zod";
import { Decider, VerdictCode } from "../verdict";

/** One resolver step for one resource: what was asked, how it was found, the verdict. */
export const ResolverStep = z.object({
  kind: z.literal("resolver.step"),
  /** The resolve this step belongs to. */
  run: z.string(),
  field: z.string(),
  ref: z.string(),
  refKind: z.enum(["absolute", "relative", "url", "command", "directory"]),
  pin: z.string().nullable(),
  cache: z.enum(["hit", "miss", "stale", "none"]),
  allowed: z.boolean(),
  code: VerdictCode,
  reason: z.string(),
  by: Decider,
  bytes: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  warning: z.string().optional(),
  /** The node's id within the run and its parent's: the Resolver panel's tree. */
  id: z.number().int().nonnegative().optional(),
  parent: z.number().int().nonnegative().nullable().optional(),
  depth: z.number().int().nonnegative().optional(),
  /** What the node is: the harness, a base layer, a file, a directory, a literal command, an allowlist entry. */
  resource: z.enum(["harness", "base", "file", "directory", "command", "allowlist"]).optional(),
  /** sha256 of the content actually obtained (a directory's tree hash); `pin` is what was declared. */
  sha256: z.string().nullable().optional(),
  /** The URL fetched (pin removed), when remote. */
  url: z.string().optional(),
  /** How many files a directory holds. */
  files: z.number().int().nonnegative().optional(),
});

/** Start and end of a whole resolve, for the panel's progress bar. */
export const ResolverRun = z.object({
  kind: z.literal("resolver.run"),
  run: z.string(),
  phase: z.enum(["start", "progress", "done", "failed"]),
  harness: z.string(),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  message: z.string().optional(),
});

/** An authoring diagnostic (e.g. the lint for a preflight_check that looks like a script path). Shown, not fatal. */
export const ResolverLint = z.object({
  kind: z.literal("resolver.lint"),
  run: z.string(),
  field: z.string(),
  severity: z.enum(["error", "warning", "info"]),
  code: z.string(),
  message: z.string(),
});

/**
 * A change to the org-level allowlist the operator keeps (the page's Resolver panel): which
 * list is now active, by the sha256 of its canonical form (src/resolver/org-allowlist.ts),
 * what was added and removed, and who changed it (the editor, a share link's accepted
 * proposal, a reset to the default).
 */
export const OrgAllowlistChange = z.object({
  kind: z.literal("resolver.allowlist"),
  oldHash: z.string(),
  newHash: z.string(),
  source: z.string(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
});

export const resolverEvents = [ResolverStep, ResolverRun, ResolverLint, OrgAllowlistChange] as const;
