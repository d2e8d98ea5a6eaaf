import { concatBytes, utf8 } from "../../bytes";
import { createEventLog, type EventLog } from "../../log";
import type { Timers } from "../../platform";
import { Policy } from "../../policy";
import { createProxy, type EgressProxy, type UpstreamFetch, type UpstreamInit } from "../../proxy";
import { exchangeOnce } from "../../proxy/testing/memory";
import { createModelEndpoint, type ModelEndpoint } from "../endpoint";
import type { VerbUsage } from "../prompt";
import { STEP_SCHEMA, TEST_VERBS } from "./steps";

/**
 * The model endpoint behind a real proxy, driven over HTTP as the guest's tab-agent drives it
 * (`curl --data-binary @transcript http://10.0.2.2:3128/v0/model`), with a recorded upstream.
 */

export const OWN = "10.0.2.2:3128";
export const RULES = "# Platform rules (authoritative)\n\n1. Work only inside the workspace and /tmp.\n";

export const policyAllowing = (hosts: { host: string; path: string }[]): Policy =>
  Policy.parse({
    version: 1,
    hosts: hosts.map(({ host, path }) => ({ host, endpoints: [{ methods: ["POST"], paths: [path] }] })),
  });

export interface UpstreamCall {
  url: string;
  headers: [string, string][];
  body: string;
}

export interface GuestSide {
  proxy: EgressProxy;
  endpoint: ModelEndpoint;
  log: EventLog;
  calls: UpstreamCall[];
  /** POSTs a transcript to /v0/model as the guest does; the raw answer. */
  post(transcript: string): Promise<{ status: number; headers: Record<string, string>; body: string; raw: string }>;
}

export function guestSide(options: {
  policy: Policy;
  answer: (url: string, init: UpstreamInit) => Response | Promise<Response>;
  timers?: Timers;
  verbs?: readonly VerbUsage[];
  corsProxy?: string;
}): GuestSide {
  const log = createEventLog({ clock: () => 1000 });
  const calls: UpstreamCall[] = [];
  const fetch: UpstreamFetch = async (url, init) => {
    calls.push({ url, headers: init.headers, body: init.body ? new TextDecoder().decode(init.body) : "" });
    return options.answer(url, init);
  };
  const endpoint = createModelEndpoint({
    verbs: options.verbs ?? TEST_VERBS,
    rules: RULES,
    stepSchema: STEP_SCHEMA,
    ...(options.timers ? { timers: options.timers, timeoutMs: 60_000 } : {}),
  });
  const proxy = createProxy({
    policy: () => options.policy,
    fetch,
    clock: () => 1000,
    log,
    ownHost: OWN,
    handlers: endpoint.handlers,
    ...(options.corsProxy ? { corsProxy: options.corsProxy } : {}),
  });
  return {
    proxy,
    endpoint,
    log,
    calls,
    async post(transcript) {
      const body = utf8(transcript);
      const head = `POST /v0/model HTTP/1.1\r\nHost: ${OWN}\r\nUser-Agent: curl/8.5.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      return exchangeOnce(proxy, concatBytes(utf8(head), body));
    },
  };
}

/** A JSON answer as a model API gives it (the status decides success or failure). */
export const json = (status: number, body: unknown): Response =>
  new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export const anthropicText = (text: string) =>
  json(200, { id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" });

export const openAiText = (text: string | null) =>
  json(200, { id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: text } }] });
