import { decodeUtf8Strict } from "../bytes";
import { refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import type { OwnHandlers, OwnRequest, OwnResponse } from "../proxy";
import type { RuntimeFetch, RuntimeFetchAnswer, RuntimeFetchFile } from "./runtime-fetch";

/**
 * `POST /v0/resolve {"url": "https://…#sha256=…"}` on the page's proxy: the endpoint behind the
 * guest's `tab-fetch URL#sha256=…`. It is open only while a run whose harness sets
 * `allow_runtime_fetch: true` is armed; otherwise the endpoint is not there
 * (`runtime-fetch-not-allowed`, 404). Each call is one proxy decision and one resolver node;
 * the answer's status follows `runtimeFetchStatus`. A served resource is written into the
 * run's tree by the host's `deliver` and the guest is told where, with each file's sha256 and
 * size (never the bytes: the guest reads them from the tree).
 */

export const RESOLVE_PATH = "/v0/resolve";
export const RESOLVE_ROUTE = `POST ${RESOLVE_PATH}`;

/** What the host writes into the run's tree for one served call. */
export interface RuntimeDelivery {
  run: string;
  /** The call's index in the run (0-based): the host's directory for it, e.g. `runtime/0/`. */
  index: number;
  url: string;
  kind: "file" | "directory";
  sha256: string;
  files: RuntimeFetchFile[];
}

export interface RuntimeArm {
  fetch: RuntimeFetch;
  /** Writes the files into the run's tree; resolves to the directory the guest finds them in. */
  deliver(delivery: RuntimeDelivery): Promise<{ path: string }>;
}

export interface RuntimeFetchEndpoint {
  /** `{"POST /v0/resolve": handler}`, for the proxy's own handlers. */
  handlers: OwnHandlers;
  /** Opens the endpoint for one run; the returned function closes it again. */
  arm(run: RuntimeArm): () => void;
  /** The armed run's use so far, or null. */
  armed(): { run: string; used: number; max: number } | null;
}

const json = (value: unknown): string => `${JSON.stringify(value)}\n`;

function parseBody(body: Uint8Array): unknown {
  const text = decodeUtf8Strict(body);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createRuntimeFetchEndpoint(): RuntimeFetchEndpoint {
  let current: RuntimeArm | null = null;

  const refused = (verdict: Verdict, status: number, target: string): OwnResponse => ({
    verdict,
    target,
    decision: { status },
  });

  async function handle(request: OwnRequest): Promise<OwnResponse> {
    const run = current;
    if (!run?.fetch.allowed) {
      const verdict = refuse(
        "runtime-fetch-not-allowed",
        `${RESOLVE_ROUTE} is there only while a run whose harness sets allow_runtime_fetch: true is going on`,
        "resolver",
      );
      // A harness that does not allow it still gets its refusal recorded under its run.
      const answer = run ? await run.fetch.handle(parseBody(request.body)) : null;
      return refused(answer?.verdict ?? verdict, 404, RESOLVE_PATH);
    }
    const answer: RuntimeFetchAnswer = await run.fetch.handle(parseBody(request.body));
    const target = answer.url ?? RESOLVE_PATH;
    if (!answer.verdict.allowed || answer.index === null || answer.kind === undefined || answer.sha256 === undefined)
      return refused(answer.verdict, answer.status, target);
    let path: string;
    try {
      ({ path } = await run.deliver({
        run: run.fetch.run,
        index: answer.index,
        url: target,
        kind: answer.kind,
        sha256: answer.sha256,
        files: answer.files ?? [],
      }));
    } catch (error) {
      const why = messageOf(error);
      return refused(
        refuse("fetch-failed", `resolved, but the page could not write it into the run's tree: ${why}`, "resolver"),
        500,
        target,
      );
    }
    return {
      verdict: answer.verdict,
      target,
      status: 200,
      contentType: "application/json",
      body: json({
        verdict: "served",
        code: answer.verdict.code,
        reason: answer.verdict.reason,
        url: target,
        kind: answer.kind,
        sha256: answer.sha256,
        cache: answer.cache,
        path,
        files: (answer.files ?? []).map((f) => ({ path: f.path, sha256: f.sha256, size: f.bytes.length })),
        fetches: { used: run.fetch.used(), max: run.fetch.max },
      }),
    };
  }

  return {
    // A JSON body only: a browser form posted cross-site can never reach it.
    handlers: { [RESOLVE_ROUTE]: { json: true, handle } },
    arm(run) {
      if (current) throw new Error("a run is already armed for run-time fetches");
      current = run;
      return () => {
        if (current === run) current = null;
      };
    },
    armed: () => (current ? { run: current.fetch.run, used: current.fetch.used(), max: current.fetch.max } : null),
  };
}
