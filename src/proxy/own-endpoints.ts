import { utf8 } from "../bytes";
import { logJsonLinesStream, refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import { policyHash } from "../policy";
import type { Connection, DecisionMode } from "./connection";
import { fetchByValue, serveFetchEndpoint } from "./fetch-endpoint";
import type { RequestHead } from "./head";
import type { BudgetLease } from "./limits";
import { chunk, completeResponse, LAST_CHUNK, responseHead } from "./respond";
import { upstreamClock, upstreamTimeoutReason, within } from "./timeouts";
import type { OwnEndpointSpec, OwnHandler, ProxyOptions, UpstreamPath } from "./types";

/**
 * The proxy's own endpoints as one route table: the built-ins (`GET /v0/log`, `GET /v0/policy`,
 * `POST /v0/fetch`) merged with the host's injected handlers. Each entry says how its requests
 * are filed and answers with what the proxy records (once) and sends back.
 */

/** One request to an own endpoint, its body already read within the limits. */
export interface OwnCall {
  head: RequestHead;
  /** Path without the query. */
  path: string;
  query: string;
  body: Uint8Array;
  /** The exchange's share of the in-flight budget. */
  lease: BudgetLease;
  /** Whether decoding the body was charged to the lease before the body was read (`chargesDecode`). */
  decodeCharged: boolean;
}

/** What an own endpoint answered: the verdict, status, body and mode of the one decision and its reply. */
export interface OwnAnswer {
  verdict: Verdict;
  mode: DecisionMode;
  /** Served: the reply's status (default 200). Refused: a status other than the refusal code's own. */
  status?: number;
  /** What the decision names (default: the path). */
  target?: string;
  /** A complete body, or a stream sent chunked (then the decision is recorded once it has been sent). */
  body?: Uint8Array | ReadableStream<Uint8Array>;
  contentType?: string;
  /** Response headers besides the framing and `X-Verdict`. */
  headers?: [string, string][];
  /** The URL actually fetched upstream, when the endpoint fetched. */
  upstream?: string;
  /** Which way that fetch left (browser fetch, relay, direct), when the endpoint fetched. */
  upstreamPath?: UpstreamPath;
  /** Where the decision describes something other than the reply: a by-value fetch's method, status and bytes. */
  decision?: { method: string; status: number; bytes: number };
}

export interface OwnEndpoint {
  /** How the decision event files this endpoint's requests, refused or served. */
  mode: DecisionMode;
  /** Whether a POST, PUT or PATCH must carry `Content-Type: application/json`. */
  json: boolean;
  /** Charge the budget for decoding a body of declared length before reading it (the body is decoded whole). */
  chargesDecode?: boolean;
  serve(call: OwnCall): Promise<OwnAnswer>;
}

const served = (reason: string): Verdict => ({ allowed: true, code: "served", reason, by: "proxy" });

/** The route table: "METHOD /path" → endpoint. A built-in wins over a handler of the same route. */
export function ownEndpoints(options: ProxyOptions): ReadonlyMap<string, OwnEndpoint> {
  const routes = new Map<string, OwnEndpoint>();
  for (const [route, declared] of Object.entries(options.handlers ?? {})) routes.set(route, handlerEndpoint(route, declared, options));

  routes.set("GET /v0/log", {
    mode: "own",
    json: true,
    // Streamed as the client reads: a full ring is never held as one string, and the answer is
    // never dropped for being large.
    serve: async () => ({
      verdict: served("the proxy's event log, as JSON lines"),
      mode: "own",
      contentType: "application/x-ndjson",
      headers: [["X-Log-Dropped", String(options.log.dropped)]],
      body: logJsonLinesStream(options.log),
    }),
  });

  routes.set("GET /v0/policy", {
    mode: "own",
    json: true,
    serve: async () => {
      const policy = options.policy();
      return {
        verdict: served("the proxy's policy and its hash"),
        mode: "own",
        contentType: "application/json",
        body: utf8(`${JSON.stringify({ policy, sha256: await policyHash(policy) })}\n`),
      };
    },
  });

  routes.set("POST /v0/fetch", {
    mode: "fetch",
    json: true,
    chargesDecode: true,
    serve: async ({ body, lease, decodeCharged }) => {
      const outcome = await serveFetchEndpoint(options, options.policy(), body, lease, decodeCharged);
      if (outcome.kind === "refused")
        return {
          verdict: outcome.verdict,
          mode: "fetch",
          target: outcome.target,
          ...(outcome.upstream ? { upstream: outcome.upstream } : {}),
          ...(outcome.status === undefined ? {} : { status: outcome.status }),
          ...(outcome.upstreamPath === undefined ? {} : { upstreamPath: outcome.upstreamPath }),
        };
      return {
        verdict: outcome.verdict,
        mode: "fetch",
        target: outcome.target,
        upstream: outcome.upstream,
        ...(outcome.upstreamPath === undefined ? {} : { upstreamPath: outcome.upstreamPath }),
        contentType: "application/json",
        body: utf8(`${JSON.stringify(outcome.answer)}\n`),
        decision: { method: outcome.method, status: outcome.answer.status, bytes: outcome.bytes },
      };
    },
  });
  return routes;
}

/** An injected handler as a route-table entry: its declared mode and body type, its answer as an OwnAnswer. */
function handlerEndpoint(route: string, declared: OwnHandler | OwnEndpointSpec, options: ProxyOptions): OwnEndpoint {
  const spec = typeof declared === "function" ? { handle: declared } : declared;
  const mode = spec.mode ?? "own";
  return {
    mode,
    json: spec.json ?? false,
    serve: async ({ head, path, query, body, lease }) => {
      let answer: Awaited<ReturnType<OwnHandler>>;
      // A handler is this endpoint's upstream: it answers within the upstream timeout like any
      // other, or the guest gets a 504 instead of a connection held for ever.
      const clock = upstreamClock(options);
      const stop = new AbortController();
      try {
        const policy = options.policy();
        const outcome = await within(
          clock,
          spec.handle({
            method: head.method,
            path,
            query,
            headers: head.headers,
            body,
            policy,
            fetchByValue: (request) => fetchByValue(options, policy, request, lease),
            signal: stop.signal,
          }),
        );
        if (outcome.kind === "timeout") {
          const reason = upstreamTimeoutReason(clock?.ms ?? 0, `the ${route} handler gave no answer`);
          stop.abort(new Error(reason));
          return { verdict: refuse("upstream-error", reason, "proxy"), mode, target: path, status: 504 };
        }
        answer = outcome.value;
      } catch (error) {
        const why = messageOf(error);
        return { verdict: refuse("upstream-error", `the ${route} handler failed: ${why}`, "proxy"), mode, target: path };
      }
      const described = answer.decision ?? {};
      const filed = {
        verdict: answer.verdict,
        mode: described.mode ?? mode,
        target: answer.target ?? path,
        ...(described.upstream === undefined ? {} : { upstream: described.upstream }),
      };
      if (!answer.verdict.allowed) return { ...filed, ...(described.status === undefined ? {} : { status: described.status }) };
      return {
        ...filed,
        status: answer.status ?? 200,
        contentType: answer.contentType ?? "application/json",
        body: typeof answer.body === "string" ? utf8(answer.body) : (answer.body ?? new Uint8Array(0)),
      };
    },
  };
}

/**
 * Writes a served answer: complete, or chunked as its stream yields. `record` hears the bytes
 * sent: before a complete reply is written, after a streamed one ends (however it ended).
 */
export async function sendOwnReply(conn: Connection, answer: OwnAnswer, close: boolean, record: (bytes: number) => void): Promise<void> {
  const status = answer.status ?? 200;
  const contentType = answer.contentType ?? "application/json";
  const body = answer.body ?? new Uint8Array(0);
  if (body instanceof Uint8Array) {
    record(body.length);
    await conn.write(...completeResponse(status, contentType, body, close));
    return;
  }
  const headers: [string, string][] = [
    ["Content-Type", contentType],
    ["Transfer-Encoding", "chunked"],
    ["X-Verdict", "served"],
    ...(answer.headers ?? []),
  ];
  if (close) headers.push(["Connection", "close"]);
  let bytes = 0;
  try {
    await conn.write(responseHead(status, headers));
    const reader = body.getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      bytes += part.value.length;
      await conn.write(...chunk(part.value));
    }
    await conn.write(LAST_CHUNK);
  } finally {
    record(bytes);
  }
}
