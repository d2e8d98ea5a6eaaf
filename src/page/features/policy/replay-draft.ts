import { DEFAULT_LEARN_DEPTH, type LogLine, learnPolicy, POLICY_FORMATS } from "../../../policy-tools";
import { h } from "../../chrome/dom";
import { downloadText } from "../../chrome/download";

/** The choice meaning "the format the log came in" (`npx tab policy learn` without --format). */
const LOG_FORMAT = "";
/** This project's own policy (`--format json`). */
const OWN_FORMAT = "json";

/** A draft's file name, by format: what the reader saves it as. */
const FILE_NAMES: Readonly<Record<string, string>> = {
  json: "drafted-policy.json",
  smokescreen: "drafted-acl.yaml",
  "sandbox-runtime": "drafted-srt-settings.json",
  awf: "drafted-awf-config.yaml",
  openshell: "drafted-openshell-policy.yaml",
};

/** Lines of a draft shown on the page; a longer one is cut (the download has it whole): laying out megabytes of text takes seconds. */
const MAX_SHOWN_LINES = 400;

function shownDraft(text: string): string {
  let at = -1;
  for (let n = 0; n < MAX_SHOWN_LINES; n++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return text;
  }
  if (at === text.length - 1) return text;
  const rest = text.slice(at + 1).split("\n").length - 1;
  return `${text.slice(0, at + 1)}… ${rest} more lines in the downloaded file\n`;
}

export interface ReplayDraft {
  element: HTMLElement;
  /** The log just replayed: its decisions and the proxy it came from (null: this project's). */
  offer(lines: readonly LogLine[], logFormat: string | null): void;
  clear(): void;
}

/**
 * "Draft a policy from this log" under the Replay panel: the same draft as `npx tab policy
 * learn LOG`, written in the format the reader brought (a smokescreen log drafts an ACL, an awf
 * audit.jsonl an awf config, an OpenShell log an OpenShell policy), or the format chosen.
 * Shown, and offered as a download; the current policy is not changed.
 */
export function createReplayDraft(): ReplayDraft {
  const format = h(
    "select",
    { attrs: { "aria-label": "Draft format", "data-testid": "log-replay-draft-format" } },
    h("option", { attrs: { value: LOG_FORMAT } }, "in the log's format"),
    h("option", { attrs: { value: OWN_FORMAT } }, "this project's policy (JSON)"),
    ...Object.entries(POLICY_FORMATS).map(([name, f]) => h("option", { attrs: { value: name } }, `as ${f.label}`)),
  );
  const button = h(
    "button",
    { class: "small", attrs: { type: "button", "data-testid": "log-replay-draft" } },
    "Draft a policy from this log",
  );
  const status = h("div", { class: "policy-draft-status", attrs: { "aria-live": "polite", "data-testid": "log-replay-draft-status" } });
  const text = h("pre", { class: "log-replay-draft-text", attrs: { "data-testid": "log-replay-draft-text", hidden: "" } });
  const element = h(
    "div",
    { class: "log-replay-draft", attrs: { hidden: "" } },
    h("div", { class: "log-replay-bar" }, button, format),
    status,
    text,
  );
  let held: { lines: readonly LogLine[]; logFormat: string | null } | null = null;

  button.addEventListener("click", () => {
    if (!held) return;
    const learned = learnPolicy(held.lines, { depth: DEFAULT_LEARN_DEPTH });
    const name = format.value === LOG_FORMAT ? (held.logFormat ?? OWN_FORMAT) : format.value;
    const foreign = POLICY_FORMATS[name];
    const exported = foreign ? foreign.export(learned.policy, {}) : { value: `${JSON.stringify(learned.policy, null, 2)}\n`, notes: [] };
    text.textContent = shownDraft(exported.value);
    text.hidden = false;
    status.textContent = [
      `drafted from ${learned.learnedFrom} requests${foreign ? `, as ${foreign.label}` : ", as this project's policy"}`,
      ...exported.notes.map((n) => `${name}: ${n}`),
      ...learned.skipped.map((s) => `not learned: line ${s.line} ${s.target} (${s.reason})`),
    ].join("\n");
    downloadText(
      FILE_NAMES[name] ?? "drafted-policy.txt",
      exported.value,
      name.endsWith("json") || name === "sandbox-runtime" ? "application/json" : "application/yaml",
    );
  });

  return {
    element,
    offer(lines, logFormat) {
      held = { lines, logFormat };
      element.hidden = false;
      text.hidden = true;
      status.textContent = "";
    },
    clear() {
      held = null;
      element.hidden = true;
    },
  };
}
