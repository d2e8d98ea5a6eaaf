import { type OrgAllowlist, orgAllowlistText, parseOrgAllowlistText } from "../../../resolver";
import { h, replaceChildren } from "../../chrome/dom";

// Inline, as the vault's approval card: values only, nothing from outside.
const CARD_STYLE =
  "border: 2px solid var(--warn); border-radius: 6px; background: #2a2310; padding: 6px 10px; margin: 4px 0; font-size: 13px;";
const TITLE_STYLE = "font-weight: 600; color: var(--warn); margin-bottom: 4px;";
const ENTRY_STYLE = "font-family: ui-monospace, monospace; word-break: break-all;";

/**
 * The Resolver panel's org allowlist: the URL prefixes harness resources may come from,
 * one per line, validated as you type (errors name the line), applied with "Save" (one
 * `resolver.allowlist` event with old and new hash), "Reset to default" for the bundled
 * sample's. Above it, a share link's proposal as a card the operator must answer: nothing a
 * link carries is allowed until Accept is pressed.
 */
export function createAllowlistView(allowlist: OrgAllowlist, onProposal: () => void): HTMLElement {
  const editor = h("textarea", {
    class: "policy-editor",
    attrs: {
      "aria-label": "Org allowlist: one https:// URL prefix per line",
      spellcheck: "false",
      rows: "4",
      "data-testid": "allowlist-editor",
      style: "min-height: 5em",
    },
  });
  const status = h("div", { class: "policy-status", attrs: { "aria-live": "polite", "data-testid": "allowlist-status" } });
  const notice = h("div", { attrs: { role: "status", "data-testid": "allowlist-notice", style: "color: var(--warn); font-size: 12px" } });
  const hash = h("span", { class: "hash", attrs: { "data-testid": "allowlist-hash" } });
  const summary = h("summary", { attrs: { "data-testid": "allowlist-summary" } }, "Org allowlist");
  const save = h("button", { class: "small", attrs: { type: "button", "data-testid": "allowlist-save" } }, "Save allowlist");
  const reset = h(
    "button",
    { class: "small", title: "Back to the bundled sample's org allowlist", attrs: { type: "button", "data-testid": "allowlist-reset" } },
    "Reset to default",
  );
  const details = h(
    "details",
    { attrs: { "data-testid": "org-allowlist" } },
    summary,
    h(
      "div",
      { class: "counters" },
      "The URL prefixes harness resources may come from (org-level allowed_remote_resources). Each must be https://, end in /, and be written in normal form.",
    ),
    editor,
    h("div", { attrs: { style: "display: flex; gap: 6px; align-items: center; flex-wrap: wrap" } }, save, reset, hash),
    status,
  );
  const proposal = h("div", { attrs: { "data-testid": "allowlist-proposal", "aria-live": "assertive" } });
  const element = h("div", {}, proposal, notice, details);

  let shownText = "";
  const setStatus = (ok: boolean, text: string) => {
    status.className = `policy-status ${ok ? "valid" : "invalid"}`;
    status.textContent = text;
  };
  const validate = () => {
    const parsed = parseOrgAllowlistText(editor.value);
    const dirty = editor.value !== shownText;
    save.disabled = !parsed.ok || !dirty;
    if (!parsed.ok) setStatus(false, `not saved: ${parsed.errors.join("; ")}`);
    else setStatus(true, dirty ? `valid: ${parsed.entries.length} prefixes, not saved yet` : "valid: in use");
  };
  editor.addEventListener("input", validate);

  save.addEventListener("click", () => {
    void allowlist.replaceText(editor.value, "resolver panel").then((result) => {
      if (!result.ok) setStatus(false, `not saved: ${result.errors.join("; ")}`);
      else setStatus(true, result.changed ? "saved: used by the next resolve" : "saved: nothing allowed changed");
    });
  });
  reset.addEventListener("click", () => {
    void allowlist.reset("resolver panel (reset)").then(() => setStatus(true, "reset to the bundled sample's default"));
  });

  const card = () => {
    const pending = allowlist.proposal();
    if (pending === null) return null;
    const decide = (accept: boolean) => () => void allowlist.decide(accept);
    const button = (label: string, decision: string, accept: boolean) =>
      h("button", { attrs: { type: "button", "data-decision": decision }, on: { click: decide(accept) } }, label);
    return h(
      "div",
      { role: "alertdialog", attrs: { style: CARD_STYLE, "aria-label": "Allow the prefixes this link proposes?" } },
      h("div", { attrs: { style: TITLE_STYLE } }, `⚠ This ${pending.source} proposes widening the org allowlist`),
      h("div", {}, "It asks to let harness resources come from:"),
      h("ul", { attrs: { style: "margin: 2px 0" } }, ...pending.entries.map((e) => h("li", { attrs: { style: ENTRY_STYLE } }, e))),
      pending.problems.length > 0 ? h("div", { class: "counters" }, `Dropped as invalid: ${pending.problems.join("; ")}`) : null,
      h(
        "div",
        {},
        "Nothing is fetched from them unless you accept. Rejecting keeps your allowlist as it is; the link's harness is then refused where it needs them.",
      ),
      h(
        "div",
        { attrs: { style: "display: flex; gap: 8px; margin-top: 6px" } },
        button("Accept", "accept", true),
        button("Reject", "reject", false),
      ),
    );
  };

  let hadProposal = false;
  const render = () => {
    const entries = allowlist.entries();
    summary.textContent = `Org allowlist: ${entries.length} prefix${entries.length === 1 ? "" : "es"}`;
    hash.textContent = allowlist.hash() ? `sha256 ${allowlist.hash()}` : "";
    notice.textContent = allowlist.notice() ?? "";
    notice.hidden = allowlist.notice() === null;
    const text = orgAllowlistText(entries);
    // Keep what the operator is typing; follow changes made elsewhere (a proposal, a reset).
    if (editor.value === shownText || text !== shownText) editor.value = text;
    shownText = text;
    validate();
    const shown = card();
    replaceChildren(proposal, shown);
    proposal.hidden = shown === null;
    if (shown && !hadProposal) onProposal();
    hadProposal = shown !== null;
  };
  allowlist.subscribe(render);
  render();
  return element;
}
