import { KernelRuleset, type NewEvent } from "../log";

const list = (v: string | undefined) => (v ? v.split(",").filter((s) => s !== "") : []);
/** A port as llrun printed it: digits are a port, `*` is "not restricted"; anything else is kept as text, which the schema refuses. */
const portItem = (item: string): number | string => (/^\d{1,5}$/.test(item) ? Number(item) : item);

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
    // Written through the log's own schema, so the line on the log is one every reader reads
    // back: `*` stays `"*"` (a port list item), and a line that does not fit is no event.
    const event = KernelRuleset.safeParse({
      kind: "kernel.ruleset",
      abi: Number(f.get("abi") ?? -1),
      fsRo: list(f.get("fs_ro")),
      fsRw: list(f.get("fs_rw")),
      connect: list(f.get("connect")).map(portItem),
      bind: list(f.get("bind")).map(portItem),
      scope: list(f.get("scope")),
      dropped: list(f.get("dropped")),
      line,
    });
    return event.success ? event.data : null;
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
