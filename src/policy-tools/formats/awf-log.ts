import { z } from "zod";
import type { TranslatedLine } from "../../log";
import { isObject, lineIssues, withPort } from "./line-parts";

/**
 * github/gh-aw-firewall's `audit.jsonl` (Squid's access log as JSON lines) read as decisions a
 * replay re-decides, in both envelopes awf has written: the schema'd one (`_schema:
 * "audit/v…"`, `timestamp`, `event: "http_access"`) and the older one (`ts`, seconds since the
 * epoch, with or without `_schema`). Written from awf's `schemas/audit.schema.json` and its
 * `samples/audit/`. docs/formats.md has the table.
 *
 * awf decides by domain: Squid's `decision` `TCP_DENIED…` is a refusal, `NONE…` is no decision
 * (an aborted or broken connection, which awf itself counts as neither), every other code
 * (`TCP_TUNNEL`, `TCP_MISS`, …) is allowed.
 */

/** The fields of an audit line a replay needs; awf writes `client` and `dest` too (kept out: the page is the only client, the address is Squid's). */
const AuditLine = z.object({
  _schema: z.string().max(100).optional(),
  timestamp: z.string().max(100).optional(),
  ts: z.number().optional(),
  event: z.string().max(100).optional(),
  host: z.string().max(300).optional(),
  method: z.string().min(1).max(30),
  status: z.number().int(),
  decision: z.string().min(1).max(100),
  url: z.string().min(1).max(8192),
});

/** Whether a JSON value is an awf log line: `_schema: "<type>/v…"`, or the older envelope's `ts` with Squid's `decision`. */
function awfRecordType(value: unknown): string | null {
  if (!isObject(value) || "kind" in value || "msg" in value || "class_uid" in value) return null;
  if (typeof value._schema === "string") {
    const type = /^([a-z][a-z0-9-]*)\/v\d/.exec(value._schema)?.[1];
    return type ?? null;
  }
  if (typeof value.ts === "number" && typeof value.decision === "string" && typeof value.method === "string") return "audit";
  return null;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function hostOf(authority: string): string {
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
  const colon = authority.lastIndexOf(":");
  return colon === -1 ? authority : authority.slice(0, colon);
}

/**
 * An awf audit line as this log's `proxy.decision`: a CONNECT is `CONNECT host:port` (its `url`),
 * a plain-http request its method and absolute `url`. A refusal is the allowlist's
 * `host-not-allowed` (awf decides by domain), `ip-literal` for a raw IP (awf refuses those
 * before its domain rules) or `port-not-allowed` for a CONNECT to a port other than 80 and 443
 * (awf's Safe_ports). Other awf records (`token-usage/…`) and non-`http_access` events are
 * counted as skipped.
 */
export function awfAuditLine(value: unknown, line: number): TranslatedLine {
  const type = awfRecordType(value);
  if (type === null) return null;
  if (type !== "audit") return { skip: `awf ${type.slice(0, 40)}` };
  const event = (value as { event?: unknown }).event;
  if (event !== undefined && event !== "http_access") return { skip: `awf audit ${String(event).slice(0, 40)}` };
  const parsed = AuditLine.safeParse(value);
  if (!parsed.success)
    return {
      refuse: `not a valid gh-aw-firewall audit line: ${lineIssues(parsed.error)}`,
    };
  const d = parsed.data;
  if (d.decision.startsWith("NONE")) return { skip: "awf audit NONE (no decision: an aborted connection)" };
  const connect = d.method.toUpperCase() === "CONNECT";
  let target: string;
  if (connect) target = withPort(d.url.replace(/^[a-z]+:\/\//i, "").replace(/\/.*$/, ""), true);
  else if (/^https?:\/\//i.test(d.url)) target = d.url;
  else if (d.host && d.host !== "-" && d.url.startsWith("/")) target = `http://${d.host}${d.url}`;
  else return { refuse: `not a valid gh-aw-firewall audit line: url ${JSON.stringify(d.url.slice(0, 80))} is not an absolute URL` };
  const allowed = !d.decision.startsWith("TCP_DENIED");
  let code: "served" | "host-not-allowed" | "ip-literal" | "port-not-allowed" = "served";
  if (!allowed) {
    const authority = connect ? target : (/^[a-z]+:\/\/([^/?#]*)/i.exec(target)?.[1] ?? "");
    const host = hostOf(authority.slice(authority.lastIndexOf("@") + 1));
    const port = connect ? Number(authority.slice(authority.lastIndexOf(":") + 1)) : Number.NaN;
    if (IPV4.test(host) || host.startsWith("[")) code = "ip-literal";
    else if (connect && port !== 443 && port !== 80) code = "port-not-allowed";
    else code = "host-not-allowed";
  }
  const time = d.timestamp !== undefined ? Date.parse(d.timestamp) : d.ts !== undefined ? d.ts * 1000 : Number.NaN;
  return {
    event: {
      kind: "proxy.decision",
      seq: line,
      time: Number.isFinite(time) ? Math.round(time) : 0,
      id: `awf-line-${line}`,
      mode: connect ? "connect" : "absolute",
      method: connect ? "CONNECT" : d.method.toUpperCase(),
      target,
      status: d.status,
      bytes: 0,
      durationMs: 0,
      allowed,
      code,
      reason: `gh-aw-firewall: ${d.decision} ${d.status}`,
      by: "proxy",
    },
  };
}
