import type { LogEvent } from "../../log";
import { formatBytes } from "../chrome/dom";
import { type Row, toneOf } from "./event-panel";

const verdictCell = (e: { allowed: boolean; code: string }) => (e.allowed ? `✓ ${e.code}` : `✗ ${e.code}`);
/** A decision served under report mode shows what the allowlist would have refused, as its own mark. */
const decisionCell = (e: { allowed: boolean; code: string; wouldRefuse?: string | undefined; bodyCut?: true | undefined }) =>
  e.wouldRefuse ? `⚠ would refuse ${e.wouldRefuse}` : e.bodyCut ? `⚠ ${e.code}, body cut short` : verdictCell(e);

export function wireRow(e: LogEvent): Row | null {
  switch (e.kind) {
    case "wire.frame":
      return { tone: "info", cells: [e.dir === "in" ? "guest→tab" : "tab→guest", e.proto, e.summary, formatBytes(e.bytes)] };
    case "wire.connection":
      return {
        tone: e.phase === "refused" || e.phase === "reset" ? "warn" : "info",
        cells: [
          e.phase,
          "tcp",
          `${e.remote}:${e.port}${e.note ? ` (${e.note})` : ""}`,
          `in ${formatBytes(e.bytesIn)} / out ${formatBytes(e.bytesOut)}`,
        ],
      };
    case "wire.dns":
      return { tone: "warn", cells: ["guest→tab", "dns", `query ${e.name} ${e.type} → ${e.answer}`, ""] };
    case "wire.malformed":
      return { tone: "warn", cells: ["guest→tab", "malformed", e.reason, formatBytes(e.bytes)] };
    case "wire.verdict":
      return { tone: toneOf(e.allowed), cells: [verdictCell(e), e.by, `${e.target}: ${e.reason}`, ""] };
    default:
      return null;
  }
}

/** Which way a request left the page, as the Proxy panel says it. */
const UPSTREAM_PATHS = {
  "browser-fetch": "the browser's fetch() (CORS applies)",
  "wisp-relay": "the Wisp relay; the page was the TLS client and verified the certificate",
  "cors-relay": "a CORS relay (it saw the request)",
  direct: "the Node host's own TCP and TLS",
} as const;

export function proxyRow(e: LogEvent): Row | null {
  switch (e.kind) {
    case "proxy.decision":
      return {
        tone: e.wouldRefuse || e.bodyCut ? "warn" : toneOf(e.allowed),
        cells: [
          decisionCell(e),
          `${e.method} ${e.target}${e.upstreamPath === "wisp-relay" ? " · via relay" : ""}`,
          e.by,
          String(e.status),
          formatBytes(e.bytes),
          `${Math.round(e.durationMs)} ms`,
        ],
        details: [
          ["request", e.id],
          ["mode", e.mode],
          ...(e.upstreamPath ? ([["upstream path", UPSTREAM_PATHS[e.upstreamPath]]] as [string, string][]) : []),
          ...(e.upstream ? ([["upstream", e.upstream]] as [string, string][]) : []),
          ["reason", e.reason],
          ...(e.bodyCut
            ? ([["body", `cut short by the upstream after ${formatBytes(e.bytes)}; status ${e.status} was already sent`]] as [
                string,
                string,
              ][])
            : []),
          ...(e.wouldRefuse ? ([["would refuse", `${e.wouldRefuse}: ${e.wouldRefuseReason ?? ""}`]] as [string, string][]) : []),
          ...(e.tlsSession ? ([["TLS session", e.tlsSession]] as [string, string][]) : []),
          ...Object.entries(e.headers ?? {}).map(([k, v]) => [`header ${k}`, v] as [string, string]),
        ],
      };
    case "tls.session":
      return {
        tone: e.phase === "failed" ? "refused" : "info",
        cells: [`tls ${e.phase}${e.resumed ? " (resumed)" : ""}`, `CONNECT ${e.connectHost}`, "proxy", "", "", `${e.requests} req`],
        details: [
          ["session", e.id],
          // A resumed session sent no certificate: the one on record is the ticket's first session's.
          ["handshake", e.resumed ? `resumed from a session ticket${e.pskMode ? ` (${e.pskMode})` : ""} (no certificate sent)` : "full"],
          ["SNI", e.sni ?? "(none)"],
          ["cipher", e.cipher ?? ""],
          ["key share group", e.group ?? ""],
          ["ALPN", e.alpn ?? "(none)"],
          ["certificate sha256", e.certFingerprint ?? ""],
          ["requests carried", String(e.requests)],
        ],
      };
    case "tls.verdict":
      return {
        tone: toneOf(e.allowed),
        cells: [verdictCell(e), e.target, e.by, "", "", ""],
        details: [
          ["session", e.session],
          ["reason", e.reason],
          ["alert", e.alert ?? "(none)"],
        ],
      };
    case "kms.event":
      return {
        tone: toneOf(e.allowed),
        cells: [verdictCell(e), `vault ${e.op} ${e.vaultId}`, e.by, "", "", ""],
        details: [["reason", e.reason]],
      };
    default:
      return null;
  }
}

export function resolverRow(e: LogEvent): Row | null {
  switch (e.kind) {
    case "resolver.step":
      return {
        tone: e.warning ? "warn" : toneOf(e.allowed),
        cells: [verdictCell(e), e.field, e.ref, e.cache, e.pin ? `${e.pin.slice(0, 12)}…` : "", formatBytes(e.bytes)],
        details: [
          ["reason", e.reason],
          ["kind", e.refKind],
          ["pin", e.pin ?? "(none)"],
          ["by", e.by],
          ["time", `${Math.round(e.durationMs)} ms`],
          ...(e.warning ? ([["warning", e.warning]] as [string, string][]) : []),
        ],
      };
    case "resolver.run":
      return {
        tone: e.phase === "failed" ? "refused" : "info",
        cells: [e.phase, "harness", e.harness, "", `${e.done}/${e.total}`, e.message ?? ""],
      };
    case "resolver.allowlist":
      return {
        tone: "info",
        cells: [
          "allowlist",
          "org allowlist",
          [...e.added.map((a) => `+ ${a}`), ...e.removed.map((r) => `− ${r}`)].join("\n") || "(reordered)",
          "",
          `${e.oldHash.slice(0, 12)} → ${e.newHash.slice(0, 12)}`,
          e.source,
        ],
        details: [
          ["old sha256", e.oldHash],
          ["new sha256", e.newHash],
          ["source", e.source],
        ],
      };
    case "resolver.lint":
      return { tone: e.severity === "error" ? "warn" : "info", cells: [`lint ${e.severity}`, e.field, e.message, "", e.code, ""] };
    case "skills.step":
      return {
        tone: toneOf(e.allowed),
        cells: [verdictCell(e), `skill ${e.step}`, e.id, "", e.handle ?? "", ""],
        details: [
          ["detail", e.detail],
          ["reason", e.reason],
        ],
      };
    default:
      return null;
  }
}

export function cacheRow(e: LogEvent): Row | null {
  if (e.kind !== "cache.event") return null;
  return {
    tone: e.op === "corrupt" || e.op === "quota" ? "refused" : e.op === "miss" ? "warn" : "info",
    cells: [e.op, e.sha256 ? `${e.sha256.slice(0, 16)}…` : "", formatBytes(e.bytes), e.url ?? e.message ?? ""],
  };
}

export function policyRow(e: LogEvent): Row | null {
  if (e.kind === "policy.change")
    return { tone: "info", cells: ["applied", `${(e.oldHash ?? "(none)").slice(0, 12)} → ${e.newHash.slice(0, 12)}`, e.source] };
  if (e.kind === "policy.invalid") return { tone: "refused", cells: ["invalid", e.errors.join("; "), "editor"] };
  return null;
}

export function kernelRow(e: LogEvent): Row | null {
  switch (e.kind) {
    case "kernel.decision":
      return {
        tone: "refused",
        cells: [
          e.code,
          `${e.access.join(",")} ${e.target}`,
          `by kernel · ${e.program || "?"}${e.pid === null ? "" : ` pid ${e.pid}`} · domain ${e.domain}`,
        ],
        details: [
          ["reason", e.reason],
          ["audit record", e.record],
          ...(e.domainProgram ? ([["domain made by", e.domainProgram]] as [string, string][]) : []),
        ],
      };
    case "kernel.abi":
      return { tone: "info", cells: ["landlock", `ABI ${e.abi}`, ""] };
    case "kernel.ruleset":
      return {
        tone: "info",
        cells: [
          "ruleset",
          `connect ${e.connect.join(",") || "none"} · rw ${e.fsRw.join(",") || "none"} · ro ${e.fsRo.join(",") || "none"}`,
          e.dropped.length ? `dropped: ${e.dropped.join(",")}` : "",
        ],
        details: [["line", e.line]],
      };
    case "kernel.result":
      return {
        tone: e.result === "EACCES" ? "refused" : e.result === "ok" ? "ok" : "warn",
        cells: [
          e.program,
          `${e.target} → ${e.result}${e.errno === null ? "" : ` (errno ${e.errno})`}`,
          e.result === "EACCES" ? "kernel: no packet left" : "",
        ],
        details: [["line", e.line]],
      };
    case "boot.progress":
      return { tone: e.phase === "error" ? "refused" : "info", cells: [`boot ${e.phase}`, e.message, ""] };
    default:
      return null;
  }
}
