import { z } from "zod";
import { DECIDERS, type Decider, NewEvent, VERDICT_CODES, type VerdictCode } from "../log";
import { Policy } from "../policy";
import { compileOutputPattern } from "./output-pattern";

/** The format version this code reads. A new version is a new literal, never a silent change. */
export const LESSON_FORMAT = 1;

/**
 * The errno names a `kernel` item may name: what `tcpconnect` reports (guest/src/tcpconnect.c,
 * its own table of names) for a connect() the kernel refused or the network did not answer,
 * and `ok` for one that connected.
 */
export const KERNEL_RESULTS = [
  "ok",
  "EACCES",
  "EPERM",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "EAFNOSUPPORT",
  "EINVAL",
] as const;
export type KernelResult = (typeof KERNEL_RESULTS)[number];

/** Every event kind of the log, as an `absent` item names it (`wire.frame`; `wire-frame` reads the same). */
export const EVENT_KINDS: readonly string[] = NewEvent.options.map((o) => o.shape.kind.value);

/** `wire-frame` and `wire.frame` name the same kind; the judge compares the dotted form. */
export function eventKindName(raw: string): string | null {
  const dotted = raw.includes(".") ? raw : raw.replace("-", ".");
  return EVENT_KINDS.includes(dotted) ? dotted : null;
}

const oneOf = <T extends string>(values: readonly T[], what: string, hint = "") =>
  z.string().refine((v): v is T => (values as readonly string[]).includes(v), {
    error: (issue) => `unknown ${what} ${JSON.stringify(issue.input)}${hint}`,
  }) as unknown as z.ZodType<T>;

const EXIT_MESSAGE = `must be 0, "nonzero" or an exit status from 0 to 255`;

const NonEmpty = z.string().min(1, "must not be empty");

/**
 * Which decision of an HTTPS request a `verdict` item judges: the request's own (`request`,
 * the default: the request inside the tunnel, or the CONNECT's refusal when the tunnel never
 * opened), or the CONNECT that opened the tunnel (`tunnel`: its `served` means only "the
 * tunnel opened"). docs/lessons.md, "What a verdict item judges".
 */
export const VERDICT_OF = ["request", "tunnel"] as const;
export type VerdictOf = (typeof VERDICT_OF)[number];

/** One thing a step's command must have left on the log or in its marks. */
export type ExpectItem =
  | { verdict: VerdictCode; by?: Decider; target?: string; of?: VerdictOf }
  | { exit: 0 | "nonzero" | number }
  | { output: string }
  | { kernel: KernelResult }
  | { dns: string }
  | { absent: string }
  | { check: string; within?: number; as?: CheckUser };

/** How long a `check` may run by default, and at most (seconds). */
export const CHECK_DEFAULT_SECONDS = 10;
export const CHECK_MAX_SECONDS = 60;
/**
 * Whom a `check` runs as, out of band in the guest: `root` (the default: in `/`, seeing the
 * whole machine, as a trainer's verify script would) or `learner` (the console shell's user and
 * working directory, so a relative path means where the learner is).
 */
export const CHECK_USERS = ["root", "learner"] as const;
export type CheckUser = (typeof CHECK_USERS)[number];

/** The fields an item may carry; exactly one of the first six says what kind of item it is. */
const ITEM_KINDS = ["verdict", "exit", "output", "kernel", "dns", "absent", "check"] as const;

const RawItem = z.strictObject({
  verdict: oneOf(VERDICT_CODES, "verdict code").optional(),
  by: oneOf(DECIDERS, "decider").optional(),
  target: NonEmpty.optional(),
  of: oneOf(
    VERDICT_OF,
    "decision",
    ` (one of ${VERDICT_OF.join(", ")}: the request's own, or the CONNECT that opened its tunnel)`,
  ).optional(),
  exit: z
    .custom<"nonzero" | number>(
      (v) => v === "nonzero" || (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 255),
      EXIT_MESSAGE,
    )
    .optional(),
  output: z
    .string()
    .superRefine((source, ctx) => {
      // Checked by the engine the judge runs, so a pattern that passes here can be judged.
      const compiled = compileOutputPattern(source);
      if (!compiled.ok) ctx.addIssue({ code: "custom", message: `${compiled.code}: ${compiled.reason}` });
    })
    .optional(),
  kernel: oneOf(KERNEL_RESULTS, "kernel result", ` (one of ${KERNEL_RESULTS.join(", ")})`).optional(),
  dns: NonEmpty.optional(),
  absent: z
    .string()
    .refine((v) => eventKindName(v) !== null, { error: (issue) => `unknown event kind ${JSON.stringify(issue.input)}` })
    .transform((v) => eventKindName(v) ?? v)
    .optional(),
  check: NonEmpty.max(1000, "a check is at most 1000 characters").optional(),
  within: z
    .number()
    .positive("must be a positive number of seconds")
    .max(CHECK_MAX_SECONDS, `a check runs at most ${CHECK_MAX_SECONDS} s`)
    .optional(),
  as: oneOf(CHECK_USERS, "check user", ` (one of ${CHECK_USERS.join(", ")})`).optional(),
});

export const ExpectItem: z.ZodType<ExpectItem> = RawItem.superRefine((item, ctx) => {
  const kinds = ITEM_KINDS.filter((k) => item[k] !== undefined);
  if (kinds.length !== 1)
    ctx.addIssue({
      code: "custom",
      message:
        kinds.length === 0
          ? `an item names one of ${ITEM_KINDS.join(", ")}`
          : `an item names exactly one of ${ITEM_KINDS.join(", ")} (this one has ${kinds.join(" and ")}): split it into items`,
    });
  for (const field of ["by", "target", "of"] as const)
    if (item[field] !== undefined && item.verdict === undefined)
      ctx.addIssue({ code: "custom", path: [field], message: `"${field}" qualifies a verdict item only` });
  for (const field of ["within", "as"] as const)
    if (item[field] !== undefined && item.check === undefined)
      ctx.addIssue({ code: "custom", path: [field], message: `"${field}" qualifies a check item only` });
}) as unknown as z.ZodType<ExpectItem>;

export const StepType = z.enum(["task", "demo"], { error: () => `must be "task" or "demo"` });
export type StepType = z.infer<typeof StepType>;

export const LessonStep = z
  .strictObject({
    title: NonEmpty,
    text: z.string().optional(),
    type: StepType.optional(),
    run: NonEmpty.optional(),
    expect: z.array(ExpectItem).min(1, "a step expects at least one item"),
    /** One hint, or hints that escalate: one more is shown after each failed attempt. */
    hint: z.union([z.string(), z.array(NonEmpty).min(1, "a list of hints has at least one")]).optional(),
    /** The steps (numbers from 1) that must have passed before this one is judged. */
    needs: z.array(z.number().int().positive("names a step by its number, from 1")).min(1).optional(),
    explain: z.string().optional(),
    solve: NonEmpty.optional(),
  })
  .superRefine((step, ctx) => {
    if ((step.type ?? "task") === "demo" && step.run === undefined)
      ctx.addIssue({ code: "custom", path: ["run"], message: "a demo step needs the command it runs" });
    if (step.run === undefined && step.solve === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["solve"],
        message: "a task step needs a `run` or a `solve` (what Show me and `lesson test` type)",
      });
  });
export type LessonStep = z.infer<typeof LessonStep>;

export const Lesson = z
  .strictObject({
    lesson: z.literal(LESSON_FORMAT, { error: () => `must be ${LESSON_FORMAT} (the format version)` }),
    title: NonEmpty,
    summary: z.string().optional(),
    /** Applied for the lesson's run, like the Policy panel's text. It never touches the org allowlist. */
    policy: Policy.optional(),
    setup: z.array(NonEmpty).optional(),
    steps: z.array(LessonStep).min(1, "a lesson has at least one step"),
  })
  .superRefine((lesson, ctx) => {
    // Steps are taken in order, so a step can only need one before it (a later one would never open).
    for (const [i, step] of lesson.steps.entries())
      for (const [j, n] of (step.needs ?? []).entries())
        if (n >= i + 1)
          ctx.addIssue({
            code: "custom",
            path: ["steps", i, "needs", j],
            message: `step ${i + 1} can only need a step before it (1 to ${i}), not step ${n}`,
          });
  });
export type Lesson = z.infer<typeof Lesson>;

/** The step's hints in the order they are shown (one more per failed attempt). */
export const stepHints = (step: LessonStep): string[] =>
  step.hint === undefined ? [] : typeof step.hint === "string" ? [step.hint] : step.hint;

/** The step's type, `task` unless it says `demo`. */
export const stepType = (step: LessonStep): StepType => step.type ?? "task";
