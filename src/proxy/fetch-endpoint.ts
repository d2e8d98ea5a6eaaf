import { z } from "zod";
import { decodeUtf8Strict, fromBase64, toBase64, utf8 } from "../bytes";
import { refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import { evaluate, type Policy } from "../policy";
import { BUDGET_SPENT } from "./body";
import { unforwardableMethod } from "./head";
import { forwardRequestHeaders, forwardResponseHeaders, headerEntries } from "./headers";
import { BodyBuffer, type BudgetLease, DEFAULT_MAX_BODY_BYTES } from "./limits";
import { upstreamClock, upstreamTimeoutReason, within } from "./timeouts";
import type { ByValueRequest, FetchAnswer, FetchOutcome, ProxyOptions } from "./types";
import { type UpstreamDeps as FetchDeps, fetchUpstream } from "./upstream";

type UpstreamDeps = FetchDeps & Pick<ProxyOptions, "maxBodyBytes">;

/**
 * `POST /v0/fetch` (harness-aware mode): a request by value, checked against the
 * same host and endpoint allowlists, answered `{status, headers, body}`. Binary bodies travel
 * as base64 with `base64: true`, both ways.
 */

export const FetchRequest = z.strictObject({
  method: z
    .string()
    .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/)
    .default("GET"),
  url: z.string().min(1).max(8192),
  headers: z.record(z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/), z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/)).default({}),
  body: z.string().nullable().default(null),
  base64: z.boolean().default(false),
});
export type FetchRequest = z.infer<typeof FetchRequest>;

export async function serveFetchEndpoint(
  deps: ProxyOptions,
  policy: Policy,
  requestBody: Uint8Array,
  lease: BudgetLease | null = null,
  decodeCharged = false,
): Promise<FetchOutcome> {
  // Decoding and parsing make copies of the body (the text, the JSON, the bytes it carries): charged
  // too, here unless the caller charged them with the body's declared length.
  if (lease && !decodeCharged && !lease.grow(decodeCharge(requestBody.length)))
    return {
      kind: "refused",
      verdict: refuse("too-large", BUDGET_SPENT, "proxy"),
      target: "/v0/fetch",
      status: 503,
    };
  const text = decodeUtf8Strict(requestBody);
  let json: unknown;
  try {
    json = text === null ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json === undefined)
    return { kind: "refused", verdict: refuse("bad-request", "/v0/fetch expects a JSON body", "proxy"), target: "/v0/fetch" };
  const parsed = FetchRequest.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ");
    return { kind: "refused", verdict: refuse("bad-request", `/v0/fetch body: ${problems}`, "proxy"), target: "/v0/fetch" };
  }
  const request = parsed.data;
  let body: Uint8Array | null = null;
  if (request.body !== null) {
    try {
      if (request.base64 && !isPlainBase64(request.body)) throw new Error("not base64");
      body = request.base64 ? fromBase64(request.body) : utf8(request.body);
    } catch {
      return {
        kind: "refused",
        verdict: refuse("bad-request", "/v0/fetch body is flagged base64 but is not base64", "proxy"),
        target: request.url,
      };
    }
  }
  return fetchByValue(deps, policy, { method: request.method, url: request.url, headers: Object.entries(request.headers), body }, lease);
}

/** What decoding and parsing a /v0/fetch body of `length` bytes may hold besides the body itself. */
export function decodeCharge(length: number): number {
  return 2 * length;
}

/**
 * Base64 as /v0/fetch accepts it, checked in one pass before decoding: the alphabet, optional
 * whitespace, and at most two `=` at the very end (a long run of `=` elsewhere made the
 * decoder's trailing-padding regex quadratic).
 */
function isPlainBase64(text: string): boolean {
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3d) {
      if (++padding > 2) return false;
      continue;
    }
    const blank = c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
    if (blank) continue;
    const alphabet = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (!alphabet || padding > 0) return false;
  }
  return true;
}

/**
 * The by-value fetch path on its own (what `POST /v0/fetch` does once its body is parsed): the
 * policy decision, the host check, `fetch(url, {redirect: "manual"})`, the body limit. Own
 * handlers get it as `OwnRequest.fetchByValue`, so a request the page makes on the guest's
 * behalf (the model endpoint) is decided and fetched exactly like one the guest sends by value.
 * It logs nothing: the caller records the one decision event.
 */
export async function fetchByValue(
  deps: UpstreamDeps,
  policy: Policy,
  request: ByValueRequest,
  lease: BudgetLease | null = null,
): Promise<FetchOutcome> {
  const { body } = request;
  const methodProblem = unforwardableMethod(request.method);
  if (methodProblem) return { kind: "refused", verdict: refuse("bad-request", methodProblem, "proxy"), target: request.url };
  if (body && body.length > 0 && (request.method === "GET" || request.method === "HEAD"))
    return {
      kind: "refused",
      verdict: refuse("bad-request", `a ${request.method} request cannot carry a body`, "proxy"),
      target: request.url,
    };

  const decision = evaluate(policy, { method: request.method, url: request.url });
  if (!decision.verdict.allowed || !decision.target) return { kind: "refused", verdict: decision.verdict, target: request.url };
  const { corsProxy: _corsProxy, ...direct } = deps;
  const outcome = await fetchUpstream(request.corsProxy === false ? direct : deps, {
    target: decision.target,
    method: request.method,
    headers: forwardRequestHeaders(request.headers),
    body,
  });
  if (outcome.kind === "refused")
    return {
      kind: "refused",
      verdict: outcome.verdict,
      target: request.url,
      upstream: decision.target.url,
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      ...(outcome.path === undefined ? {} : { upstreamPath: outcome.path }),
    };
  const read = await readAll(outcome.response, deps, lease);
  if (!read.ok)
    return {
      kind: "refused",
      verdict: read.verdict,
      status: read.status,
      target: request.url,
      upstream: decision.target.url,
      upstreamPath: outcome.path,
    };
  const asText = decodeUtf8Strict(read.bytes);
  const answer: FetchAnswer = {
    status: outcome.response.status,
    headers: Object.fromEntries(forwardResponseHeaders(headerEntries(outcome.response.headers))),
    body: asText ?? toBase64(read.bytes),
    base64: asText === null,
  };
  const reason = decision.target.upgraded ? `${outcome.verdict.reason} (http:// upgraded to https:// by policy)` : outcome.verdict.reason;
  return {
    kind: "answer",
    verdict: { ...decision.verdict, ...outcome.verdict, reason },
    target: request.url,
    upstream: outcome.via,
    upstreamPath: outcome.path,
    answer,
    bytes: read.bytes.length,
    method: request.method,
  };
}

type ReadAll = { ok: true; bytes: Uint8Array } | { ok: false; verdict: Verdict; status: number };

/**
 * The whole upstream body, into one buffer charged to the exchange's lease. Whatever happens
 * to the body (cut off, undecodable, stalled, too large) is a coded refusal, never a throw:
 * the guest is owed an answer.
 */
async function readAll(response: Response, deps: UpstreamDeps, lease: BudgetLease | null): Promise<ReadAll> {
  if (!response.body) return { ok: true, bytes: new Uint8Array(0) };
  const maxBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const clock = upstreamClock(deps);
  const reader = response.body.getReader();
  const buffer = new BodyBuffer(maxBytes, lease);
  const fail = async (verdict: Verdict, status: number): Promise<ReadAll> => {
    await reader.cancel().catch(() => undefined);
    return { ok: false, verdict, status };
  };
  for (;;) {
    let next: { kind: "value"; value: ReadableStreamReadResult<Uint8Array> } | { kind: "timeout" };
    try {
      next = await within(clock, reader.read());
    } catch (error) {
      const why = messageOf(error);
      return fail(refuse("upstream-error", `the upstream body failed after ${buffer.size} bytes: ${why}`, "proxy"), 502);
    }
    if (next.kind === "timeout")
      return fail(
        refuse(
          "upstream-error",
          upstreamTimeoutReason(clock?.ms ?? 0, `the upstream body stalled after ${buffer.size} bytes: no data`),
          "proxy",
        ),
        504,
      );
    const { value, done } = next.value;
    if (done) break;
    const appended = buffer.append(value);
    if (appended === "too-large")
      return fail(refuse("too-large", `the upstream body exceeds the ${maxBytes}-byte limit of /v0/fetch`, "proxy"), 502);
    if (appended === "budget") return fail(refuse("too-large", BUDGET_SPENT, "proxy"), 503);
  }
  return { ok: true, bytes: buffer.result() };
}
