import type { NewEvent } from "../log";

/** Audit record types the guest hands on (include/uapi/linux/audit.h). */
export const LANDLOCK_ACCESS = 1423;
export const LANDLOCK_DOMAIN = 1424;

/** Fields whose values the kernel writes with audit_log_untrustedstring: quoted, or hex when unsafe. */
const UNTRUSTED = new Set(["path", "dev", "exe", "comm", "name"]);

function hexText(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return new TextDecoder().decode(bytes);
}

/**
 * The `key=value` fields of an audit record's text (`audit(T:S): key=value …`), values
 * unquoted and unhexed. A key seen twice keeps its first value: the kernel's own fields come
 * before the SYSCALL record's pid, comm and exe the guest appends.
 */
export function auditFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/([a-z_]+)=("[^"]*"|\S*)/g)) {
    const key = m[1] ?? "";
    let value = m[2] ?? "";
    if (value.startsWith('"')) value = value.slice(1, -1);
    else if (UNTRUSTED.has(key) && /^(?:[0-9A-F]{2})+$/.test(value)) value = hexText(value);
    if (!out.has(key)) out.set(key, value);
  }
  return out;
}

interface DomainOrigin {
  pid: number | null;
  program: string;
}

export interface LandlockAuditReader {
  /** One record from the guest's control line: the kernel decision it is, or null (a domain's record). */
  read(type: number, text: string): NewEvent | null;
}

const programOf = (f: Map<string, string>): string => f.get("exe") || f.get("comm") || "";
const pidOf = (f: Map<string, string>): number | null => {
  const pid = Number(f.get("pid"));
  return Number.isInteger(pid) && f.has("pid") ? pid : null;
};

/**
 * Turns the kernel's Landlock audit records into kernel decisions on the one log. A domain's
 * record (1424) comes only with its first denial; the reader remembers which program made
 * each domain, so a later denial in it still names it.
 */
export function createLandlockAuditReader(): LandlockAuditReader {
  const domains = new Map<string, DomainOrigin>();
  return {
    read(type, text) {
      const f = auditFields(text);
      const domain = f.get("domain") ?? "";
      if (type === LANDLOCK_DOMAIN) {
        if (f.get("status") === "allocated") domains.set(domain, { pid: pidOf(f), program: programOf(f) });
        else if (f.get("status") === "deallocated") domains.delete(domain);
        return null;
      }
      if (type !== LANDLOCK_ACCESS) return null;
      const access = (f.get("blockers") ?? "").split(",").filter((s) => s !== "");
      const origin = domains.get(domain);
      const path = f.get("path");
      const portText = f.get("dest") ?? f.get("src");
      const port = portText === undefined ? undefined : Number(portText);
      const address = f.get("daddr") ?? f.get("saddr");
      const target = path ?? (port !== undefined ? `${address ?? ""}${address ? ":" : "port "}${port}` : access.join(",") || "unknown");
      const program = programOf(f) || origin?.program || "";
      const pid = pidOf(f) ?? origin?.pid ?? null;
      const rights = access.join(", ") || "an access";
      return {
        kind: "kernel.decision",
        allowed: false,
        code: "landlock-denied",
        by: "kernel",
        reason: `Landlock domain ${domain} does not allow ${rights} on ${target}`,
        access,
        target,
        ...(path !== undefined ? { path } : {}),
        ...(port !== undefined && Number.isInteger(port) ? { port } : {}),
        ...(address !== undefined ? { address } : {}),
        program,
        pid,
        domain,
        ...(origin?.program ? { domainProgram: origin.program } : {}),
        record: text,
      };
    },
  };
}
