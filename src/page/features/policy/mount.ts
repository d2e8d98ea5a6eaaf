import { logJsonLines } from "../../../log";
import { h } from "../../chrome/dom";
import { downloadText } from "../../chrome/download";
import type { PageContext } from "../context";
import { createCheckView } from "./check-view";
import { createDraftView } from "./draft-view";
import { createPolicyExportView } from "./export-view";
import { createPolicyImportView } from "./import-view";
import { createLogReplayView } from "./replay-view";
import "./policy.css";

/**
 * Policy authoring in the page (the engine is src/policy-tools, the same as `npx tab policy`):
 * "Would this be allowed?" and "Draft a policy from this session" under the Policy panel,
 * "Download log" (the session's GET /v0/log lines), and replaying a log in the Replay panel.
 */
export function mount(ctx: PageContext): void {
  const { log, policy } = ctx;
  const check = createCheckView(policy);
  // A policy change re-answers the question asked.
  log.subscribe((e) => {
    if (e.kind === "policy.change") check.refresh();
  });
  const download = h("button", { class: "small", attrs: { type: "button", "data-testid": "download-log" } }, "Download log");
  download.addEventListener("click", () => {
    downloadText(`tab-log-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`, [...logJsonLines(log)], "application/x-ndjson");
  });
  const tools = h(
    "div",
    { class: "panel-header policy-tools", attrs: { "data-testid": "policy-tools" } },
    check.element,
    createDraftView(log, policy),
    createPolicyImportView(policy),
    createPolicyExportView(policy),
    h("div", { class: "policy-download" }, download),
  );
  ctx.panels.addHeader("policy", tools);
  ctx.panels.addHeader("replay", createLogReplayView(policy));
}
