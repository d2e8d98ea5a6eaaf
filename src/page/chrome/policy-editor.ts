import type { EventLog } from "../../log";
import { DEFAULT_POLICY_TEXT, type PolicyHolder, policyHash } from "../../policy";
import { h } from "./dom";

/**
 * The Policy panel's editor: the active policy as text, validated as you type, applied to
 * new requests when it validates (each change is a `policy.change` event with old and new
 * hash; invalid text is shown with its line and field and never applied).
 */
export function createPolicyEditor(
  holder: PolicyHolder,
  log: EventLog,
  initialText = DEFAULT_POLICY_TEXT,
): { element: HTMLElement; text(): string; setText(text: string): Promise<void> } {
  const editor = h("textarea", {
    class: "policy-editor",
    attrs: { "aria-label": "Active policy (JSON or YAML)", spellcheck: "false", "data-testid": "policy-editor" },
  });
  editor.value = initialText;
  const status = h("div", { class: "policy-status", attrs: { "aria-live": "polite", "data-testid": "policy-status" } });
  const hash = h("div", { class: "hash", attrs: { "data-testid": "policy-hash" } });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let applied = "";

  const showHash = async () => {
    hash.textContent = `sha256 ${await policyHash(holder.current())}`;
  };
  const apply = async () => {
    const text = editor.value;
    if (text === applied) return;
    const result = await holder.replaceText(text, "policy panel");
    if (result.ok) {
      applied = text;
      status.className = "policy-status valid";
      status.textContent = "valid: applied to new requests";
      await showHash();
    } else {
      status.className = "policy-status invalid";
      status.textContent = `not applied: ${result.errors.join("; ")}`;
    }
  };
  editor.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void apply(), 300);
  });
  applied = initialText;
  void showHash();
  // A policy applied from elsewhere (a share link, the vault demo) replaces the text shown.
  log.subscribe((e) => {
    if (e.kind !== "policy.change" || e.source === "policy panel") return;
    const text = `${JSON.stringify(holder.current(), null, 2)}\n`;
    editor.value = text;
    applied = text;
    status.className = "policy-status valid";
    status.textContent = `applied from ${e.source}`;
    hash.textContent = `sha256 ${e.newHash}`;
  });
  status.className = "policy-status valid";
  status.textContent = "valid: the default policy";

  // Policy edits are not kept in the browser (unlike the org allowlist): say so where they are made.
  const notKept = h(
    "div",
    { class: "policy-not-kept", attrs: { "data-testid": "policy-not-kept" } },
    "Edits last as long as this tab: a reload starts from the default policy (or the link's). Copy the text to keep it.",
  );
  const element = h("div", { class: "panel-header" }, hash, editor, status, notKept);
  return {
    element,
    text: () => editor.value,
    async setText(text) {
      editor.value = text;
      await apply();
    },
  };
}
