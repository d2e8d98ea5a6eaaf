import { z } from "zod";
import type { TranslatedLine } from "../../log";
import { isObject, lineIssues } from "./line-parts";

/**
 * NVIDIA OpenShell's OCSF JSON lines (`/var/log/openshell-ocsf.*.log`, `ocsf_json_enabled`) read
 * as decisions a replay re-decides: Network Activity (`class_uid` 4001, a CONNECT tunnel to
 * `dst_endpoint`) and HTTP Activity (4002, a request `http_request.http_method` to
 * `http_request.url` on `dst_endpoint`). Written from OpenShell's docs
 * (`docs/observability/ocsf-json-export.mdx`, `logging.mdx`) and the OCSF 1.8 schema it vendors
 * (`crates/openshell-ocsf/schemas/ocsf/v1.8.0`). docs/formats.md has the table.
 *
 * `action_id` 1 (Allowed) is served, 2 (Denied) refused; an L7 request OpenShell let through
 * under `enforcement: audit` is logged Allowed with the message `L7_REQUEST audit …`, which is
 * report mode's would-refuse. Every other class (process, SSH, config, findings…), and Network
 * or HTTP Activity that is no request decision (the proxy listening, a connection error, a
 * credential check with no request), is counted as skipped.
 */

const NETWORK_ACTIVITY = 4001;
const HTTP_ACTIVITY = 4002;

const Endpoint = z.object({
  domain: z.string().max(300).optional(),
  hostname: z.string().max(300).optional(),
  ip: z.string().max(100).optional(),
  port: z.number().int().min(0).max(65535).optional(),
});
const Decision = z.object({
  class_uid: z.union([z.literal(NETWORK_ACTIVITY), z.literal(HTTP_ACTIVITY)]),
  action_id: z.number().int(),
  time: z.number().optional(),
  message: z.string().max(8192).optional(),
  status_detail: z.string().max(1000).optional(),
  disposition: z.string().max(100).optional(),
  dst_endpoint: Endpoint,
  http_request: z
    .object({
      http_method: z.string().min(1).max(30),
      url: z
        .object({
          scheme: z.string().max(20).optional(),
          hostname: z.string().max(300).optional(),
          path: z.string().max(8192).optional(),
          port: z.number().int().min(0).max(65535).optional(),
        })
        .optional(),
    })
    .optional(),
  firewall_rule: z.object({ name: z.string().max(300).optional(), type: z.string().max(100).optional() }).optional(),
});

const ALLOWED = 1;
const DENIED = 2;
const OTHER = 99;

/** The class's name for a skipped line's count ("openshell Process Activity"). */
function className(value: Record<string, unknown>): string {
  const name = typeof value.class_name === "string" ? value.class_name.slice(0, 40) : `class ${String(value.class_uid).slice(0, 12)}`;
  return `openshell ${name}`;
}

/** Why a refusal was about the address (OpenShell's SSRF guard), which a replay cannot re-decide. */
const ADDRESS_REFUSAL = /internal address|always-blocked|allowed_ips|trusted-gateway/i;

export function openShellOcsfLine(value: unknown, line: number): TranslatedLine {
  if (!isObject(value) || "kind" in value || typeof value.class_uid !== "number") return null;
  if (value.class_uid !== NETWORK_ACTIVITY && value.class_uid !== HTTP_ACTIVITY) return { skip: className(value) };
  const activity = typeof value.activity_name === "string" ? ` ${value.activity_name.slice(0, 20)}` : "";
  // No action, or no destination: the proxy listening, a connection error; not a decision.
  if (value.action_id === undefined || value.dst_endpoint === undefined) return { skip: `${className(value)}${activity} (no decision)` };
  const upgrade = value.action_id === OTHER && typeof value.message === "string" && value.message.startsWith("L7_REQUEST allow");
  if (value.action_id !== ALLOWED && value.action_id !== DENIED && !upgrade)
    return { skip: `${className(value)} action ${String(value.action).slice(0, 20)} (no decision)` };
  // A credential or authority check after the policy allowed the tunnel: no request to re-decide.
  if (value.class_uid === HTTP_ACTIVITY && value.http_request === undefined)
    return { skip: `${className(value)}${activity} without a request (a credential or authority check)` };
  const parsed = Decision.safeParse(value);
  if (!parsed.success)
    return {
      refuse: `not a valid OpenShell OCSF ${value.class_uid} line: ${lineIssues(parsed.error)}`,
    };
  const d = parsed.data;
  const host = d.dst_endpoint.domain ?? d.dst_endpoint.hostname ?? d.http_request?.url?.hostname ?? d.dst_endpoint.ip;
  if (!host) return { refuse: `not a valid OpenShell OCSF ${d.class_uid} line: dst_endpoint has no domain, hostname or ip` };
  const port = d.dst_endpoint.port ?? d.http_request?.url?.port ?? 443;
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const allowed = d.action_id !== DENIED;
  const audit = allowed && d.message !== undefined && /^L7_REQUEST audit /.test(d.message);
  const detail = d.status_detail ?? d.message ?? (allowed ? "allowed" : "denied");
  let method: string;
  let target: string;
  if (d.http_request) {
    method = d.http_request.http_method.toUpperCase();
    // OpenShell writes scheme http for requests it reads inside a TLS tunnel; port 443 is https.
    const scheme = port === 443 ? "https" : (d.http_request.url?.scheme ?? "http").toLowerCase();
    const defaultPort = (scheme === "https" && port === 443) || (scheme === "http" && port === 80);
    const path = d.http_request.url?.path ?? "/";
    target = `${scheme}://${name}${defaultPort ? "" : `:${port}`}${path.startsWith("/") ? path : `/${path}`}`;
  } else {
    method = "CONNECT";
    target = `${name}:${port}`;
  }
  const engine = d.firewall_rule?.type;
  let code: "served" | "private-address" | "endpoint-not-allowed" | "host-not-allowed" = "served";
  if (!allowed) {
    if (engine === "ssrf" || ADDRESS_REFUSAL.test(detail)) code = "private-address";
    else if (engine === "l7" || d.message?.startsWith("L7_REQUEST")) code = "endpoint-not-allowed";
    else code = "host-not-allowed";
  }
  const policy = d.firewall_rule?.name && d.firewall_rule.name !== "-" ? ` (policy ${d.firewall_rule.name})` : "";
  return {
    event: {
      kind: "proxy.decision",
      seq: line,
      time: d.time !== undefined && Number.isFinite(d.time) ? Math.round(d.time) : 0,
      id: `openshell-line-${line}`,
      mode: d.http_request ? "absolute" : "connect",
      method,
      target,
      status: allowed ? 200 : 403,
      bytes: 0,
      durationMs: 0,
      allowed,
      code,
      reason: `OpenShell${policy}: ${detail.slice(0, 300)}`,
      by: "proxy",
      ...(audit ? { wouldRefuse: "endpoint-not-allowed", wouldRefuseReason: d.message!.slice(0, 300) } : {}),
    },
  };
}
