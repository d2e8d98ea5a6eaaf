import type { PolicyHolder } from "../../../policy";
import { POLICY_FORMATS } from "../../../policy-tools";
import { h } from "../../chrome/dom";
import { downloadText } from "../../chrome/download";

/** An exported policy's file name, by format. */
const FILE_NAMES: Readonly<Record<string, string>> = {
  smokescreen: "policy-acl.yaml",
  "sandbox-runtime": "policy-srt-settings.json",
  awf: "policy-awf-config.yaml",
  openshell: "policy-openshell.yaml",
};

/**
 * "Save the policy as…": the policy in force, written in another proxy's format by the same
 * core as `npx tab policy export --format F`; what that format cannot express is listed by
 * name under the button (never dropped silently), and the file is downloaded.
 */
export function createPolicyExportView(policy: PolicyHolder): HTMLElement {
  const format = h(
    "select",
    { attrs: { "aria-label": "Format to save the policy in", "data-testid": "policy-export-format" } },
    ...Object.entries(POLICY_FORMATS).map(([name, f]) => h("option", { attrs: { value: name } }, `as ${f.label}`)),
  );
  const role = h("input", {
    attrs: {
      type: "text",
      size: "10",
      placeholder: "role",
      "aria-label": "Role (the smokescreen service to write; empty: the default rule)",
      "data-testid": "policy-export-role",
    },
  });
  const button = h("button", { class: "small", attrs: { type: "button", "data-testid": "policy-export" } }, "Save the policy");
  const status = h("div", { class: "policy-import-status", attrs: { "aria-live": "polite", "data-testid": "policy-export-status" } });
  button.addEventListener("click", () => {
    const name = format.value;
    const chosen = POLICY_FORMATS[name];
    if (!chosen) return;
    const named = role.value.trim();
    const exported = chosen.export(policy.current(), named === "" ? {} : { role: named });
    const file = FILE_NAMES[name] ?? "policy.txt";
    status.textContent = [`saved ${file}, as ${chosen.label}`, ...exported.notes.map((n) => `${name}: ${n}`)].join("\n");
    downloadText(file, exported.value, file.endsWith(".json") ? "application/json" : "application/yaml");
  });
  return h(
    "div",
    { class: "policy-import", attrs: { "data-testid": "policy-export-view" } },
    h("label", {}, "Save the policy ", format),
    h("label", {}, " smokescreen role ", role),
    button,
    status,
  );
}
