import type { NewEvent } from "../log";

const list = (v: string | undefined) => (v ? v.split(",").filter((s) => s !== "") : []);

/** Parses `key=value` pairs separated by spaces (values have no spaces: guest/README.md). */
function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/([a-z_]+)=(\S*)/g)) out.set(m[1] ?? "", m[2] ?? "");
  return out;
}

/**
 * Turns the guest's parseable result lines into Kernel panel events: `llrun` reports the
 * ruleset it applied and the demos report the errno they met (guest/README.md documents both
 * formats), the guest's view beside the kernel's own audit records (landlock-audit.ts, from
 * the control line, not the terminal). Anything else returns null.
 */
export function parseGuestLine(raw: string): NewEvent | null {
  const line = raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").trim();
  const ruleset = /^llrun: ruleset (.*)$/.exec(line);
  if (ruleset) {
    const f = fields(ruleset[1] ?? "");
    return {
      kind: "kernel.ruleset",
      abi: Number(f.get("abi") ?? -1),
      fsRo: list(f.get("fs_ro")),
      fsRw: list(f.get("fs_rw")),
      connect: list(f.get("connect")).map(Number),
      bind: list(f.get("bind")).map(Number),
      scope: list(f.get("scope")),
      dropped: list(f.get("dropped")),
      line,
    };
  }
  const result = /^(tcpconnect): (.*)$/.exec(line);
  if (result) {
    const f = fields(result[2] ?? "");
    const errno = f.get("errno");
    return {
      kind: "kernel.result",
      program: result[1] ?? "",
      target: f.get("dst") ?? "",
      result: f.get("result") ?? "",
      errno: errno === undefined ? null : Number(errno),
      line,
    };
  }
  const abi = /^landlock abi:? (\d+)$/i.exec(line);
  if (abi) return { kind: "kernel.abi", abi: Number(abi[1]) };
  return null;
}
