import type { TranslatedLine } from "../../log";
import { awfAuditLine } from "./awf-log";
import { openShellOcsfLine } from "./openshell-log";
import { smokescreenLine } from "./smokescreen";

/**
 * Other proxies' decision logs, by the name `--format` takes for their policies (a log is
 * drafted back into its own proxy's policy format). Each reads one JSON line as this log's
 * `proxy.decision`, or says it is not its format (null); a log may mix them.
 */
export const LOG_FORMATS: Readonly<Record<string, { label: string; line: (value: unknown, line: number) => TranslatedLine }>> = {
  smokescreen: { label: "smokescreen CANONICAL-PROXY-DECISION lines", line: smokescreenLine },
  awf: { label: "a gh-aw-firewall audit.jsonl", line: awfAuditLine },
  openshell: { label: "OpenShell OCSF JSON lines", line: openShellOcsfLine },
};

/** A translator for `readLogText`/`readLogChunks` that counts, per format, the decisions it read. */
export function foreignLogReader(): {
  translate: (value: unknown, line: number) => TranslatedLine;
  decisions: Map<string, number>;
} {
  const decisions = new Map<string, number>();
  const formats = Object.entries(LOG_FORMATS);
  return {
    decisions,
    translate(value, line) {
      for (const [name, format] of formats) {
        const translated = format.line(value, line);
        if (translated === null) continue;
        if ("event" in translated) decisions.set(name, (decisions.get(name) ?? 0) + 1);
        return translated;
      }
      return null;
    },
  };
}

/** Whether a skipped kind is another proxy's line ("smokescreen CANONICAL-PROXY-CN-CLOSE", "openshell Process Activity"), as the translators above name them. */
export function isForeignLogKind(kind: string): boolean {
  return Object.keys(LOG_FORMATS).some((name) => kind.startsWith(`${name} `));
}
