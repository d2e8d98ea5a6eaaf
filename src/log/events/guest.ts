import { z } from "zod";

/** Boot progress of the emulator and guest (download, boot, ready, restore, a restored guest made fresh, errors). */
export const BootProgress = z.object({
  kind: z.literal("boot.progress"),
  phase: z.enum(["download", "verify", "start", "boot", "ready", "snapshot-save", "snapshot-restore", "fresh", "error"]),
  message: z.string(),
  loaded: z.number().nonnegative().optional(),
  total: z.number().nonnegative().optional(),
  /** A download's speed over its last seconds. */
  bytesPerSecond: z.number().nonnegative().optional(),
});

/**
 * One item of a ruleset's port list: a TCP port, or `"*"`, which llrun prints for a right it
 * does not restrict (`bind=*` without `--bind`; guest/README.md). Logs written before `*` had a
 * spelling carry `null` there (the parser read `*` as a number, NaN, which JSON writes as
 * null); null is read as `"*"`, the only thing llrun ever printed that was not a port.
 */
const UNRESTRICTED = "*";
export const RulesetPort = z.preprocess(
  (item) => (item === null ? UNRESTRICTED : item),
  z.union([z.number().int().min(0).max(65535), z.literal("*")]),
);
export type RulesetPort = z.infer<typeof RulesetPort>;

/** The Landlock ruleset `llrun` reports it applied (one parseable stderr line). Each list is what llrun printed, `*` included. */
export const KernelRuleset = z.object({
  kind: z.literal("kernel.ruleset"),
  abi: z.number().int(),
  fsRo: z.array(z.string()),
  fsRw: z.array(z.string()),
  connect: z.array(RulesetPort),
  bind: z.array(RulesetPort),
  scope: z.array(z.string()),
  dropped: z.array(z.string()),
  line: z.string(),
});

/** A result a guest demo program reported, e.g. a connect() refused with EACCES by Landlock. */
export const KernelDenial = z.object({
  kind: z.literal("kernel.result"),
  program: z.string(),
  target: z.string(),
  result: z.string(),
  errno: z.number().int().nullable(),
  line: z.string(),
});

/** The guest's Landlock ABI as `llrun --abi` printed it. */
export const KernelAbi = z.object({
  kind: z.literal("kernel.abi"),
  abi: z.number().int(),
});

export const guestEvents = [BootProgress, KernelRuleset, KernelDenial, KernelAbi] as const;
