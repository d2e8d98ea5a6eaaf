import { z } from "zod";
import { refuse, type Verdict } from "../log";

const Ref = z.string().min(1, "must not be empty");

/**
 * The harness schema. Fields this resolver does not interpret are passed
 * through untouched (`z.looseObject`), so a fullsend harness keeps its other settings.
 */
export const Harness = z.looseObject({
  agent: Ref.optional(),
  policy: Ref.optional(),
  skills: z.array(Ref).optional(),
  plugins: z.array(Ref).optional(),
  pre_script: Ref.optional(),
  post_script: Ref.optional(),
  agent_input: Ref.optional(),
  host_files: z.array(z.looseObject({ src: Ref, dest: Ref })).optional(),
  validation_loop: z
    .looseObject({
      script: Ref.optional(),
      schema: Ref.optional(),
      /** A literal `sh -c` command, never resolved as a path (docs/decisions/0002-preflight-check-is-a-literal-command.md). */
      preflight_check: z.string().optional(),
    })
    .optional(),
  /** Servers the runner starts beside the agent: each `script` is executable, so local only. */
  api_servers: z.array(z.looseObject({ script: Ref.optional() })).optional(),
  base: Ref.optional(),
  allowed_remote_resources: z.array(z.string()).optional(),
  /** Run-time fetches by the agent (runtime-fetch.ts): validated here, used by the run's session. */
  allow_runtime_fetch: z.boolean().optional(),
  max_runtime_fetches: z
    .number()
    .int("must be a whole number")
    .min(1, "must be between 1 and 1000")
    .max(1000, "must be between 1 and 1000")
    .optional(),
});
export type Harness = z.infer<typeof Harness>;

/** The org-level config.yaml: only its allowlist matters here; the rest passes through. */
export const OrgConfig = z.looseObject({
  allowed_remote_resources: z.array(z.string()).default([]),
});
export type OrgConfig = z.infer<typeof OrgConfig>;

/** `skills[2]`, `validation_loop.script`: the path of a zod issue as a harness field name. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(harness)";
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; field: string; verdict: Verdict };

function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string, prefix: string): Parsed<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0]!;
  const field = prefix + fieldName(issue.path);
  return { ok: false, field, verdict: refuse("invalid-harness", `${what} field ${field}: ${issue.message}`, "resolver") };
}

export const parseHarness = (value: unknown): Parsed<Harness> => parseWith(Harness, value, "harness", "");
export const parseOrgConfig = (value: unknown): Parsed<OrgConfig> => parseWith(OrgConfig, value, "org config", "org.");
