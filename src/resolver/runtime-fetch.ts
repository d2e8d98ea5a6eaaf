import { z } from "zod";
import { allow, refuse, type Verdict, type VerdictCode } from "../log";
import { type FieldSpec, specForDependency } from "./fields";
import { HARNESS_SPEC } from "./harness-layers";
import { refForm } from "./reference";
import { now, type Step } from "./run-record";
import type { RunScope } from "./run-scope";

/**
 * Run-time fetch (the last phase of docs/decisions/0001-harness-resources-by-url-and-path.md): while a run lasts, its agent
 * may ask for one more pinned resource by URL. It is opt-in per harness
 * (`allow_runtime_fetch: true`), bounded (`max_runtime_fetches`, default 10), and resolved by
 * the run's own scope (RunScope): the same allowlists (org and harness), pins, forge
 * directory rules, one pin per URL, remote total, lock pins, cache and offline mode as the
 * harness itself. Every call, answered or refused, is one `resolver.step` node under the
 * harness's node in the run's tree (field `runtime_fetch[N]`, N counting from 0; a call refused
 * before it counted, `runtime_fetch`).
 */

export const DEFAULT_MAX_RUNTIME_FETCHES = 10;

/** What the guest sends: the pinned URL, and optionally what it expects it to be. */
export const RuntimeFetchRequest = z.object({
  url: z.string().min(1, "url is empty").max(4096, "url is longer than 4096 characters"),
  /**
   * `skill`: a skill directory (a forge directory URL). Without it, a GitHub tree URL or a
   * URL whose last segment has no extension is read as a skill directory, anything else as a file.
   */
  kind: z.enum(["file", "skill"]).optional(),
});
export type RuntimeFetchRequest = z.infer<typeof RuntimeFetchRequest>;

/** One file to put into the run's tree: its path relative to the fetch's own directory. */
export interface RuntimeFetchFile {
  path: string;
  sha256: string;
  bytes: Uint8Array;
}

export interface RuntimeFetchAnswer {
  /** The HTTP status the endpoint answers with (`runtimeFetchStatus`). */
  status: number;
  verdict: Verdict;
  /** Which call of the run this was (0-based), or null when it was refused before counting. */
  index: number | null;
  /** The node id in the run's tree. */
  node: number;
  /** The URL fetched (pin removed), once it was parsed. */
  url?: string;
  /** Served only: what was obtained and its bytes (a file's, or a directory's files). */
  kind?: "file" | "directory";
  sha256?: string;
  cache?: "hit" | "miss" | "stale" | "none";
  files?: RuntimeFetchFile[];
}

export interface RuntimeFetch {
  /** The run the fetches belong to. */
  readonly run: string;
  /** Whether the harness allows run-time fetches at all. */
  readonly allowed: boolean;
  /** Calls this run may make. */
  readonly max: number;
  /** Calls counted so far. */
  used(): number;
  /** One call: the parsed JSON body the guest sent (anything: it is checked here). */
  handle(body: unknown): Promise<RuntimeFetchAnswer>;
}

/**
 * The HTTP status of a run-time fetch's answer, by verdict code, as the reference answers:
 * a request that names nothing fetchable (no URL, not a URL, no pin, not a forge directory
 * for a skill) is 400; a URL outside the effective allowlist 403; no run-time fetch in this
 * harness 404 (the endpoint is not there); past `max_runtime_fetches` 429; bytes that do not
 * match their pin, or that fail the content gate, 422; too large 413; an offline cache miss
 * 503; any failure to fetch 502.
 */
export function runtimeFetchStatus(code: VerdictCode): number {
  switch (code) {
    case "served":
      return 200;
    case "bad-request":
    case "hash-missing":
    case "not-https":
    case "invalid-harness":
    case "path-outside-base":
    case "executable-url":
    case "cycle":
    case "depth-exceeded":
      return 400;
    case "not-allowlisted":
    case "allowlist-not-subset":
    case "port-not-allowed":
    case "ip-literal":
    case "private-address":
      return 403;
    case "runtime-fetch-not-allowed":
      return 404;
    case "too-large":
    case "truncated-tree":
      return 413;
    case "hash-mismatch":
    case "unparsable":
    case "payload-path-refused":
      return 422;
    case "runtime-fetch-limit":
    case "breadth-exceeded":
      return 429;
    case "offline-miss":
      return 503;
    default:
      return 502;
  }
}

/** The name a fetched file is delivered under: its URL's last path segment, when that is a plain name. */
function fileName(url: string): string {
  const last = new URL(url).pathname.split("/").pop() ?? "";
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = "";
  }
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name) ? name : "file";
}

const SKILL_SPEC: FieldSpec = { executable: false, shape: "directory", content: "bytes", directory: "skill" };

/**
 * The run-time fetch service of one resolved run. `session` is what `resolveHarnessSession`
 * returned for it; the harness's `allow_runtime_fetch` and `max_runtime_fetches` decide
 * whether and how often. Every call naming a URL counts towards the limit, refused or not,
 * so refusals cannot be used to probe without bound.
 */
export function createRuntimeFetch(session: RunScope): RuntimeFetch {
  const allowed = session.harness.allow_runtime_fetch === true;
  const max = session.harness.max_runtime_fetches ?? DEFAULT_MAX_RUNTIME_FETCHES;
  let calls = 0;

  const stepOf = (field: string, ref: string, spec: FieldSpec): Step => ({
    field,
    ref,
    spec,
    origin: null,
    depth: 1,
    parent: session.rootId,
    chain: [session.rootIdentity],
  });

  /** A call refused before the resolver: still one node of the run's tree. */
  const early = (step: Step, started: number, verdict: Verdict, index: number | null, url?: string): RuntimeFetchAnswer => {
    const res = session.record.record(step, started, verdict, url !== undefined ? { url } : {});
    return { status: runtimeFetchStatus(verdict.code), verdict, index, node: res.id, ...(url !== undefined ? { url } : {}) };
  };

  async function handle(body: unknown): Promise<RuntimeFetchAnswer> {
    const started = now();
    const parsed = RuntimeFetchRequest.safeParse(body);
    const ref = parsed.success ? parsed.data.url : "";
    if (!allowed) {
      return early(
        stepOf("runtime_fetch", ref, HARNESS_SPEC),
        started,
        refuse(
          "runtime-fetch-not-allowed",
          "this harness does not set allow_runtime_fetch: true, so its run may fetch nothing at run time",
          "resolver",
        ),
        null,
      );
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const why = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : "the body is not a JSON object";
      return early(
        stepOf("runtime_fetch", ref, HARNESS_SPEC),
        started,
        refuse("bad-request", `a run-time fetch is {"url": "https://…#sha256=<64 hex>"}; ${why}`, "resolver"),
        null,
      );
    }
    const index = calls++;
    const field = `runtime_fetch[${index}]`;
    const spec = parsed.data.kind === "skill" ? SKILL_SPEC : parsed.data.kind === "file" ? fileSpec(ref) : specForDependency(ref);
    const step = stepOf(field, ref, spec);
    if (index >= max)
      return early(
        step,
        started,
        refuse("runtime-fetch-limit", `this run has used all ${max} of its run-time fetches (max_runtime_fetches)`, "resolver"),
        index,
      );
    if (refForm(ref) !== "url")
      return early(
        step,
        started,
        refuse("bad-request", "a run-time fetch names an https:// URL with its #sha256= pin, not a path", "resolver"),
        index,
      );

    const outcome = await session.resources.resolve(step);
    const { res, obtained } = outcome;
    const answer: RuntimeFetchAnswer = {
      status: runtimeFetchStatus(res.verdict.code),
      verdict: res.verdict,
      index,
      node: res.id,
      ...(res.url !== null ? { url: res.url } : {}),
    };
    if (!res.verdict.allowed || obtained === null || res.sha256 === null) return answer;
    const files: RuntimeFetchFile[] = [];
    if (obtained.fileBytes && obtained.files) {
      for (const file of obtained.files) files.push({ path: file.path, sha256: file.sha256, bytes: obtained.fileBytes.get(file.path)! });
    } else if (obtained.content) {
      files.push({ path: fileName(res.url ?? ref), sha256: res.sha256, bytes: obtained.content });
    }
    return {
      ...answer,
      verdict: allow(`${res.verdict.reason} (run-time fetch ${index + 1} of ${max})`, "resolver"),
      kind: obtained.files ? "directory" : "file",
      sha256: res.sha256,
      cache: res.cache,
      files,
    };
  }

  return { run: session.run, allowed, max, used: () => calls, handle };
}

/** `kind: "file"`: a single file, whatever its name, gated by its extension like a dependency. */
function fileSpec(ref: string): FieldSpec {
  const spec = specForDependency(ref);
  return spec.shape === "file" ? spec : { executable: false, shape: "file", content: "bytes" };
}
