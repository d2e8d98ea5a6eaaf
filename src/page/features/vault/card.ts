import { formatTime, h, replaceChildren } from "../../chrome/dom";
import type { ApprovalQueue, PendingApproval } from "../../services/types";

/**
 * The approval card: a guest asked for a write grant (which unlocks the vault's signing key)
 * and the KMS waits for the operator. One clearly marked box per pending question, with the
 * vault, the op, the command the guest says it runs (its word, shown as text), when it will
 * be refused if nobody answers, and Approve / Deny. Built with `h()` only.
 */

// Inline, so the card needs no stylesheet of its own; values only, nothing from outside.
const CARD_STYLE =
  "border: 2px solid var(--warn); border-radius: 6px; background: #2a2310; padding: 6px 10px; margin: 4px 0; font-size: 13px;";
const TITLE_STYLE = "font-weight: 600; color: var(--warn); margin-bottom: 4px;";
const COMMAND_STYLE = "font-family: ui-monospace, monospace; color: var(--text); word-break: break-all;";
const BUTTONS_STYLE = "display: flex; gap: 8px; margin-top: 6px;";

export interface ApprovalCard {
  element: HTMLElement;
  /** Stops following the queue. */
  dispose(): void;
}

/** Follows `queue`; `onAsked` runs when a new question arrives (to bring the card into view). */
export function createApprovalCard(queue: ApprovalQueue, onAsked: () => void): ApprovalCard {
  const element = h("div", { attrs: { "data-testid": "vault-approvals", "aria-live": "assertive" } });
  let shown = new Set<number>();

  const card = (approval: PendingApproval) => {
    const decide = (approved: boolean) => () => {
      queue.decide(approval.id, approved);
    };
    const button = (label: string, decision: "approve" | "deny", approved: boolean) =>
      h("button", { attrs: { type: "button", "data-decision": decision }, on: { click: decide(approved) } }, label);
    return h(
      "div",
      {
        role: "alertdialog",
        attrs: {
          style: CARD_STYLE,
          "data-vault-approval": String(approval.id),
          "data-vault-id": approval.vaultId,
          "aria-label": `Approve write on vault ${approval.vaultId}?`,
        },
      },
      h("div", { attrs: { style: TITLE_STYLE } }, "⚠ KMS: a guest command asks to WRITE a vault — operator approval needed"),
      h("div", {}, "vault: ", h("strong", {}, approval.vaultId), " · op=", h("strong", {}, approval.op)),
      h("div", {}, "the guest says it is running: ", h("span", { attrs: { style: COMMAND_STYLE } }, approval.command || "(nothing said)")),
      h(
        "div",
        {},
        "Approving unlocks the vault's signing key for this one grant: the command can replace the vault's files. ",
        `Refused automatically at ${formatTime(approval.deadline)} if unanswered.`,
      ),
      h("div", { attrs: { style: BUTTONS_STYLE } }, button("Approve", "approve", true), button("Deny", "deny", false)),
    );
  };

  const render = () => {
    const pending = queue.pending();
    const arrived = pending.some((approval) => !shown.has(approval.id));
    shown = new Set(pending.map((approval) => approval.id));
    element.hidden = pending.length === 0;
    replaceChildren(element, ...pending.map(card));
    if (arrived) onAsked();
  };

  const stop = queue.subscribe(render);
  render();
  return { element, dispose: stop };
}
