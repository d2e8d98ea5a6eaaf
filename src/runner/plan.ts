import { z } from "zod";
import { sha256Hex, utf8 } from "../bytes";
import type { Verdict } from "../log";
import { DEFAULT_PREFLIGHT_ENV, expandPreflight, isCredentialName, type Resolution, type ResolvedResource, redact } from "../resolver";
import { type AttachedSkill, scriptsGiven } from "../skills";
import { AgentStep } from "./verbs";

/**
 * What the page delivers to the guest runner for one run (guest/runner/README.md): the
 * resolved harness's files, the already-checked preflight command, the agent's steps and the
 * workspace, laid out under `run/<id>/` of the 9p share. Pure: the feature writes the files.
 */

/** `skill:<hex>` → `skill-<hex>`: the directory an attached skill is delivered in. */
export function skillDirName(handle: string): string {
  return safeSegment(handle.replace(/:/g, "-"));
}

/** A guest workspace: a plain path under /tmp (the agent may write there; nothing else). */
export const WorkspacePath = z
  .string()
  .regex(/^\/tmp\/[A-Za-z0-9._/-]+$/, "must be a plain path under /tmp")
  .refine((p) => !p.split("/").includes(".."), "must not climb with ..");

export const RUN_ID = /^run-[a-z0-9]{4,32}$/;

/**
 * The host environment the page stands for when it expands `${VAR}` (docs/decisions/0002-preflight-check-is-a-literal-command.md): the guest
 * shell's own variables. The same allowlisted subset reaches the `sh -c` process.
 */
export const GUEST_HOST_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/root",
  LANG: "C.UTF-8",
  TERM: "xterm",
  TMPDIR: "/tmp",
  USER: "root",
  SHELL: "/bin/sh",
};

export type PreflightPlan =
  | { kind: "none" }
  | { kind: "command"; command: string; env: Record<string, string>; references: string[] }
  | { kind: "refused"; verdict: Verdict; references: string[] };

/**
 * Every `${NAME}` is checked before any is expanded (a credential or a name outside
 * the allowlist refuses the whole command); the `sh -c` process gets exactly the allowlisted
 * variables that exist, never a credential.
 */
export function planPreflight(
  command: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  allowlist: readonly string[] = DEFAULT_PREFLIGHT_ENV,
): PreflightPlan {
  if (command === undefined || command.trim() === "") return { kind: "none" };
  const expanded = expandPreflight(command, env, allowlist);
  if (!expanded.ok) return { kind: "refused", verdict: expanded.verdict, references: expanded.references };
  const childEnv: Record<string, string> = {};
  for (const name of allowlist) {
    const value = env[name];
    if (value === undefined || isCredentialName(name) || /[\r\n\0]/.test(value)) continue;
    childEnv[name] = value;
  }
  return { kind: "command", command: expanded.command, env: childEnv, references: expanded.references };
}

/** `skills[1].dependencies[0]` → `skills-1.dependencies-0`: a directory name for a field. */
export function fieldSlug(field: string): string {
  return field.replace(/\[(\d+)\]/g, "-$1").replace(/[^A-Za-z0-9._-]/g, "_");
}

const safeSegment = (s: string) => (s === "." || s === ".." || s === "" ? "_" : s.replace(/[^A-Za-z0-9._-]/g, "_"));

/** A delivered relative path: plain segments only. */
export function isPlainRelativePath(path: string): boolean {
  return (
    path !== "" && !path.startsWith("/") && !/[\r\n\0\\]/.test(path) && path.split("/").every((s) => s !== "" && s !== "." && s !== "..")
  );
}

/** Where a resolved file lands in the run directory: `files/<field>/<its own name>`. */
export function deliveredFilePath(resource: Pick<ResolvedResource, "field" | "path" | "url">): string {
  const from = resource.path ?? resource.url ?? "";
  const name = from.split("#")[0]!.split("?")[0]!.split("/").pop() ?? "";
  return `files/${fieldSlug(resource.field)}/${safeSegment(name || "file")}`;
}

export interface DeliveredFile {
  /** Relative to the run directory. */
  path: string;
  bytes: Uint8Array;
  sha256: string;
  /** The harness field it came from (null for plan files, harness.json and the repo). */
  field: string | null;
}

/** Steps from the harness: `agent_steps` (a list), else a ```tab-agent block in agent_input. */
export function stepsFromHarness(harness: Record<string, unknown>, agentInput: string | null): string[] | null {
  const listed = z.array(z.string()).safeParse(harness.agent_steps);
  if (listed.success) return listed.data;
  const block = agentInput === null ? null : /```tab-agent\r?\n([\s\S]*?)```/.exec(agentInput);
  if (block) return block[1]!.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"));
  return null;
}

/** When a harness says nothing about steps: look around, then stop. */
export const DEFAULT_STEPS: readonly string[] = ["context", "list .", "done the harness gave no steps; looked around and stopped"];

function preflightOf(harness: Record<string, unknown>): string | undefined {
  const loop = harness.validation_loop;
  const nested = typeof loop === "object" && loop !== null ? (loop as Record<string, unknown>).preflight_check : undefined;
  const top = harness.preflight_check;
  if (typeof nested === "string") return nested;
  return typeof top === "string" ? top : undefined;
}

/** Sets `a.b[1].c` in a JSON-like object when that path exists (dependencies do not). */
function setField(target: Record<string, unknown>, field: string, value: string): void {
  const parts = [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
  let node: unknown = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return;
    node = (node as Record<string | number, unknown>)[part];
  }
  const last = parts.at(-1);
  if (last === undefined || typeof node !== "object" || node === null || !(last in node)) return;
  (node as Record<string | number, unknown>)[last] = value;
}

export interface RunRequest {
  id: string;
  resolution: Resolution;
  /** A resolved file's bytes by sha256 (the page: the CAS, re-verified on read). */
  read(sha256: string): Promise<Uint8Array | null>;
  steps?: readonly string[];
  workspace?: string;
  /** A repository checkout delivered as `repo/` and copied to the workspace when it is absent. */
  repo?: Readonly<Record<string, string | Uint8Array>>;
  /** The host environment for `${VAR}` (default GUEST_HOST_ENV); credentials in it never pass. */
  env?: Readonly<Record<string, string>>;
  /** Replaces the harness's preflight_check (null: none). */
  preflight?: string | null;
  /** Skills the run attaches by handle: their wrapped text, and scripts only when allowed. */
  skills?: readonly AttachedSkill[];
}

export interface RunPlan {
  id: string;
  dir: string;
  files: DeliveredFile[];
  preflight: PreflightPlan;
  steps: string[];
  stepsSource: "request" | "harness" | "default";
  workspace: string;
  /** The command the page types into the guest. */
  command: string;
}

export type PlanResult = { ok: true; plan: RunPlan } | { ok: false; reason: string };

export async function buildRunPlan(request: RunRequest): Promise<PlanResult> {
  const { id, resolution } = request;
  if (!RUN_ID.test(id)) return { ok: false, reason: `run id ${id} is not run-[a-z0-9]+` };
  if (!resolution.ok || resolution.harness === null)
    return {
      ok: false,
      reason: `the harness did not resolve: ${resolution.error?.code ?? "failed"} ${resolution.error?.reason ?? ""}`.trim(),
    };
  const workspace = WorkspacePath.safeParse(request.workspace ?? `/tmp/work-${id}`);
  if (!workspace.success) return { ok: false, reason: `workspace: ${workspace.error.issues[0]?.message}` };

  const dir = `run/${id}`;
  const files: DeliveredFile[] = [];
  const add = async (path: string, bytes: Uint8Array, field: string | null) => {
    files.push({ path, bytes, sha256: await sha256Hex(bytes), field });
  };
  const harness = structuredClone(resolution.harness);
  const byField = new Map<string, string>();
  const texts = new Map<string, string>();

  for (const resource of resolution.resources) {
    if (!resource.verdict.allowed || resource.sha256 === null || resource.depth === 0) continue;
    if (resource.resource === "file") {
      const bytes = await request.read(resource.sha256);
      if (bytes === null) return { ok: false, reason: `${resource.field}: ${resource.sha256} is not in the cache` };
      const path = deliveredFilePath(resource);
      await add(path, bytes, resource.field);
      byField.set(resource.field, path);
      texts.set(resource.field, new TextDecoder().decode(bytes));
      setField(harness, resource.field, `/mnt/tab/${dir}/${path}`);
    } else if (resource.resource === "directory") {
      const base = `files/${fieldSlug(resource.field)}`;
      for (const file of resource.files ?? []) {
        if (!isPlainRelativePath(file.path)) return { ok: false, reason: `${resource.field}: ${file.path} is not a plain path` };
        const bytes = await request.read(file.sha256);
        if (bytes === null) return { ok: false, reason: `${resource.field}/${file.path}: ${file.sha256} is not in the cache` };
        await add(`${base}/${file.path}`, bytes, resource.field);
      }
      byField.set(resource.field, base);
      setField(harness, resource.field, `/mnt/tab/${dir}/${base}`);
    }
  }

  let steps: string[];
  let stepsSource: RunPlan["stepsSource"];
  const fromHarness = stepsFromHarness(resolution.harness, texts.get("agent_input") ?? null);
  if (request.steps) [steps, stepsSource] = [[...request.steps], "request"];
  else if (fromHarness) [steps, stepsSource] = [fromHarness, "harness"];
  else [steps, stepsSource] = [[...DEFAULT_STEPS], "default"];
  for (const [i, step] of steps.entries()) {
    const checked = AgentStep.safeParse(step);
    if (!checked.success) return { ok: false, reason: `step ${i + 1} "${step.slice(0, 60)}": ${checked.error.issues[0]?.message}` };
  }

  const env = { ...GUEST_HOST_ENV, ...(request.env ?? {}) };
  const preflightCommand = request.preflight === undefined ? preflightOf(resolution.harness) : (request.preflight ?? undefined);
  const preflight = planPreflight(preflightCommand, env);

  const planText: [string, string][] = [
    ["workspace", workspace.data],
    ["steps", `${steps.join("\n")}\n`],
    ["timeout", String(timeoutSeconds(resolution.harness.timeout_minutes))],
  ];
  for (const [name, field] of [
    ["agent", "agent"],
    ["agent_input", "agent_input"],
    ["pre_script", "pre_script"],
    ["post_script", "post_script"],
    ["validate", "validation_loop.script"],
    ["schema", "validation_loop.schema"],
  ] as const) {
    const path = byField.get(field);
    if (path) planText.push([name, path]);
  }
  if (preflight.kind === "command") {
    planText.push(["preflight", preflight.command]);
    planText.push([
      "preflight.env",
      Object.entries(preflight.env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(""),
    ]);
  } else if (preflight.kind === "refused") {
    planText.push(["preflight.refused", redact(preflight.verdict.reason, env)]);
  }
  for (const [name, text] of planText) await add(`plan/${name}`, utf8(text), null);

  // Attached skills (docs/decisions/0003-skills-from-a-public-registry.md): the wrapped text, and scripts only when the operator
  // allowed this exact pin. `plan/skills` names each one for tab-run: dir, handle, pin, digest.
  const skillLines: string[] = [];
  for (const skill of request.skills ?? []) {
    const dirName = skillDirName(skill.activation.handle);
    await add(`skills/${dirName}/SKILL.md`, skill.context, null);
    for (const script of skill.scripts) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(script.name))
        return { ok: false, reason: `skill script ${script.name} is not a plain name` };
      await add(`skills/${dirName}/scripts/${script.name}`, script.bytes, null);
    }
    skillLines.push(
      `${dirName} ${skill.activation.handle} ${skill.activation.pin} ${skill.activation.contextSha256} ${scriptsGiven(skill)}\n`,
    );
  }
  if (skillLines.length > 0) await add("plan/skills", utf8(skillLines.join("")), null);

  for (const [path, content] of Object.entries(request.repo ?? {})) {
    if (!isPlainRelativePath(path)) return { ok: false, reason: `repo file ${path} is not a plain relative path` };
    await add(`repo/${path}`, typeof content === "string" ? utf8(content) : content, null);
  }

  const record = {
    run: id,
    source: resolution.source,
    resolverRun: resolution.run,
    harness,
    resources: resolution.resources.map((r) => ({
      field: r.field,
      ref: r.ref,
      sha256: r.sha256,
      code: r.verdict.code,
      delivered: byField.get(r.field) ?? null,
    })),
    steps,
    workspace: workspace.data,
    skills: (request.skills ?? []).map((skill) => ({
      ...skill.activation,
      scripts: skill.scripts.map((x) => ({ name: x.name, sha256: x.sha256 })),
      scriptsVerdict: skill.scriptsVerdict.code,
    })),
  };
  await add("harness.json", utf8(`${JSON.stringify(record, null, 2)}\n`), null);
  const manifest = files.map((f) => `${f.sha256}  ${f.path}\n`).join("");
  await add("manifest.sha256", utf8(manifest), null);

  return {
    ok: true,
    plan: { id, dir, files, preflight, steps, stepsSource, workspace: workspace.data, command: `sh /mnt/tab/bin/tab-run /mnt/tab/${dir}` },
  };
}

function timeoutSeconds(minutes: unknown): number {
  return typeof minutes === "number" && Number.isFinite(minutes) && minutes > 0 ? Math.min(Math.round(minutes * 60), 3600) : 600;
}
