import { z } from "zod";
import { concatBytes, decodeUtf8Strict, fromBase64, toBase64, utf8 } from "../bytes";
import { refuse, type Verdict } from "../log";
import { evaluate, type Policy } from "../policy";
import { MAX_BODY_BYTES } from "./head";
import { forwardRequestHeaders, forwardResponseHeaders, headerEntries } from "./headers";
import type { ByValueRequest, ProxyOptions } from "./types";
import { fetchUpstream } from "./upstream";

type UpstreamDeps = Pick<ProxyOptions, "fetch" | "resolveHost" | "corsRelay">;

/**
 * `POST /v0/fetch` (seed 004, harness-aware mode): a request by value, checked against the
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

export interface FetchAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  base64: boolean;
}

export type FetchOutcome =
  | { kind: "refused"; verdict: Verdict; target: string; upstream?: string }
  | { kind: "answer"; verdict: Verdict; target: string; upstream: string; answer: FetchAnswer; bytes: number; method: string };

export async function serveFetchEndpoint(deps: ProxyOptions, policy: Policy, requestBody: Uint8Array): Promise<FetchOutcome> {
  const text = decodeUtf8Strict(requestBody);
  let json: unknown;
  try {
    json = text === null ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json === undefined)
    return { kind: "refused", verdict: refuse("bad-request", "/v0/fetch expects a JSON body", "net"), target: "/v0/fetch" };
  const parsed = FetchRequest.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ");
    return { kind: "refused", verdict: refuse("bad-request", `/v0/fetch body: ${problems}`, "net"), target: "/v0/fetch" };
  }
  const request = parsed.data;
  let body: Uint8Array | null = null;
  if (request.body !== null) {
    try {
      body = request.base64 ? fromBase64(request.body) : utf8(request.body);
    } catch {
      return {
        kind: "refused",
        verdict: refuse("bad-request", "/v0/fetch body is flagged base64 but is not base64", "net"),
        target: request.url,
      };
    }
  }
  return fetchByValue(deps, policy, { method: request.method, url: request.url, headers: Object.entries(request.headers), body });
}

/**
 * The by-value fetch path on its own (what `POST /v0/fetch` does once its body is parsed): the
 * policy decision, the host check, `fetch(url, {redirect: "manual"})`, the body limit. Own
 * handlers get it as `OwnRequest.fetchByValue`, so a request the page makes on the guest's
 * behalf (the model endpoint) is decided and fetched exactly like one the guest sends by value.
 * It logs nothing: the caller records the one decision event.
 */
export async function fetchByValue(deps: UpstreamDeps, policy: Policy, request: ByValueRequest): Promise<FetchOutcome> {
  const { body } = request;
  if (body && body.length > 0 && (request.method === "GET" || request.method === "HEAD"))
    return {
      kind: "refused",
      verdict: refuse("bad-request", `a ${request.method} request cannot carry a body`, "net"),
      target: request.url,
    };

  const decision = evaluate(policy, { method: request.method, url: request.url });
  if (!decision.verdict.allowed || !decision.target) return { kind: "refused", verdict: decision.verdict, target: request.url };
  const { corsRelay: _relay, ...direct } = deps;
  const outcome = await fetchUpstream(request.relay === false ? direct : deps, {
    target: decision.target,
    method: request.method,
    headers: forwardRequestHeaders(request.headers),
    body,
  });
  if (outcome.kind === "refused") return { kind: "refused", verdict: outcome.verdict, target: request.url, upstream: decision.target.url };
  const read = await readAll(outcome.response);
  if (!read.ok)
    return { kind: "refused", verdict: refuse("too-large", read.reason, "net"), target: request.url, upstream: decision.target.url };
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
    verdict: { ...outcome.verdict, reason },
    target: request.url,
    upstream: outcome.via,
    answer,
    bytes: read.bytes.length,
    method: request.method,
  };
}

async function readAll(response: Response): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; reason: string }> {
  if (!response.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, reason: `the upstream body exceeds the ${MAX_BODY_BYTES}-byte limit of /v0/fetch` };
    }
    parts.push(value);
  }
  return { ok: true, bytes: concatBytes(...parts) };
}
