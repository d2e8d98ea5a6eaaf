import type { EventLog } from "../../../log";
import type { Policy, PolicyHolder } from "../../../policy";
import {
  applyRuleChanges,
  DEFAULT_LEARN_DEPTH,
  describeRuleChange,
  diffPolicies,
  type LogLine,
  learnPolicy,
  type RuleChange,
} from "../../../policy-tools";
import { h, replaceChildren } from "../../chrome/dom";

/** The source a drafted policy is applied under (its `policy.change` event says so). */
export const DRAFT_SOURCE = "policy draft";

/**
 * "Draft a policy from this session": the smallest policy for what this session served or
 * would-refuse, shown as a rule-by-rule diff against the current policy. Each rule is accepted
 * or rejected on its own; applying is one `policy.change`.
 */
export function createDraftView(log: EventLog, policy: PolicyHolder): HTMLElement {
  const depth = h("input", {
    attrs: {
      type: "number",
      min: "0",
      max: "20",
      value: String(DEFAULT_LEARN_DEPTH),
      "aria-label": "Path depth",
      "data-testid": "policy-draft-depth",
    },
  });
  const draftButton = h(
    "button",
    { class: "small", attrs: { type: "button", "data-testid": "policy-draft" } },
    "Draft a policy from this session",
  );
  const list = h("ul", { class: "policy-draft-changes", attrs: { "data-testid": "policy-draft-changes" } });
  const status = h("div", { class: "policy-draft-status", attrs: { "aria-live": "polite", "data-testid": "policy-draft-status" } });
  const applyButton = h(
    "button",
    { class: "small", attrs: { type: "button", "data-testid": "policy-draft-apply", hidden: "" } },
    "Apply accepted rules",
  );
  let drafted: { base: Policy; changes: RuleChange[]; accepted: Set<RuleChange> } | null = null;

  draftButton.addEventListener("click", () => {
    const base = policy.current();
    const lines: LogLine[] = log.events().map((event, i) => ({ line: i + 1, event }));
    const n = Number(depth.value);
    const learned = learnPolicy(lines, { base, depth: Number.isInteger(n) && n >= 0 ? n : DEFAULT_LEARN_DEPTH });
    const changes = diffPolicies(base, learned.policy).filter((c) => c.kind !== "same");
    // Adding and narrowing are offered accepted; dropping a rule the session did not use is offered rejected.
    const accepted = new Set(changes.filter((c) => c.kind !== "remove"));
    drafted = { base, changes, accepted };
    replaceChildren(
      list,
      ...changes.map((change) => {
        const box = h("input", { attrs: { type: "checkbox", "aria-label": `Accept ${change.kind} ${change.host}` } });
        box.checked = accepted.has(change);
        box.addEventListener("change", () => (box.checked ? accepted.add(change) : accepted.delete(change)));
        return h(
          "li",
          { class: `rule-${change.kind}`, attrs: { "data-host": change.host, "data-change": change.kind } },
          h("label", {}, box, " ", describeRuleChange(change)),
        );
      }),
    );
    const skipped = learned.skipped.map((s) => `not learned: ${s.target} (${s.reason})`);
    status.textContent = [
      `drafted from ${learned.learnedFrom} requests: ${changes.length === 0 ? "the current policy already is that policy" : `${changes.length} rule changes`}`,
      ...skipped,
      ...learned.notes,
    ].join("\n");
    applyButton.hidden = changes.length === 0;
  });

  applyButton.addEventListener("click", () => {
    if (!drafted) return;
    const { base, changes, accepted } = drafted;
    const next = applyRuleChanges(base, changes, (c) => accepted.has(c));
    drafted = null;
    applyButton.hidden = true;
    replaceChildren(list);
    void policy.replace(next, DRAFT_SOURCE).then((hash) => {
      status.textContent = `applied ${accepted.size} of ${changes.length} rule changes (sha256 ${hash.slice(0, 12)}…)`;
    });
  });

  return h(
    "div",
    { class: "policy-draft", attrs: { "data-testid": "policy-draft-section" } },
    h("div", { class: "policy-draft-bar" }, draftButton, h("label", {}, " path depth ", depth), applyButton),
    list,
    status,
  );
}
