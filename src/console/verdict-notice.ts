import { decisionOf, displayText, type LogEvent } from "../log";

/**
 * What a person at the terminal is told about the verdicts a command met. A client prints
 * only what the proxy's status line says ("CONNECT tunnel failed, response 403"); the code and
 * the reason are on the log. After each command the page writes one notice per refusal (and
 * per body the upstream cut short) under it, so the why is where the person is looking.
 */
export interface VerdictNotice {
  /** The verdict code the notice is about (`served` for a body cut short). */
  code: string;
  /** The notice as one line of text, visible characters only (hostile text is escaped). */
  text: string;
}

/** More notices than this for one command are summed up in one last line. */
export const MAX_NOTICES_PER_COMMAND = 3;

/** The notices for one command's events, oldest first, at most `MAX_NOTICES_PER_COMMAND` and a summary. */
export function commandNotices(events: readonly LogEvent[]): VerdictNotice[] {
  const all = events.flatMap((e) => {
    const notice = noticeOf(e);
    return notice ? [notice] : [];
  });
  if (all.length <= MAX_NOTICES_PER_COMMAND) return all;
  const shown = all.slice(0, MAX_NOTICES_PER_COMMAND - 1);
  const rest = all.length - shown.length;
  return [...shown, { code: "more", text: `tab: ${rest} more verdicts for this command are in the Proxy panel` }];
}

/** The notice one event calls for, or null: refusals by the proxy, TLS and the guest's kernel, bodies cut short, report-mode findings. */
export function noticeOf(e: LogEvent): VerdictNotice | null {
  if (e.kind === "kernel.decision")
    return notice(
      e.code,
      `kernel refused ${e.access.join(",")} on ${e.target} (${e.program || "?"}${e.pid === null ? "" : ` pid ${e.pid}`}): ${e.code}, Landlock domain ${e.domain}`,
    );
  const d = decisionOf(e);
  if (!d || (d.kind !== "proxy.decision" && d.kind !== "tls.verdict")) return null;
  if (!d.allowed) return notice(d.code, `proxy refused ${d.subject}: ${d.code}, ${d.reason}`);
  if (d.bodyCut) return notice("served", `proxy served ${d.subject} but the upstream cut its body short: ${d.reason}`);
  if (d.wouldRefuse)
    return notice(d.wouldRefuse, `report mode: proxy would refuse ${d.subject}: ${d.wouldRefuse}, ${d.wouldRefuseReason ?? ""}`);
  return null;
}

const notice = (code: string, text: string): VerdictNotice => ({ code, text: `tab: ${displayText(text)}` });

/**
 * A notice cut into rows of at most `cols` characters for a terminal that is `cols` wide, at
 * most `maxRows` of them (the last one ends in "…" when text was left out). Rows are cut by
 * code point, so an astral character is never split.
 */
export function noticeRows(text: string, cols: number, maxRows = 2): string[] {
  const width = Math.max(8, cols - 1);
  const chars = [...text];
  const rows: string[] = [];
  for (let at = 0; at < chars.length && rows.length < maxRows; at += width) rows.push(chars.slice(at, at + width).join(""));
  if (chars.length > width * maxRows) {
    const last = [...(rows[rows.length - 1] ?? "")];
    rows[rows.length - 1] = `${last.slice(0, width - 1).join("")}…`;
  }
  return rows;
}
