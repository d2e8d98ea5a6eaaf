import type { PolicyHolder } from "../../../policy";
import { foreignPolicyFormat, LOG_FORMATS, POLICY_FORMATS, readLogLines } from "../../../policy-tools";
import { h } from "../../chrome/dom";

/** The source an imported policy is applied under (its `policy.change` event says so). */
export const IMPORT_SOURCE = "policy import";

/**
 * "Open a policy file": this project's policy, or another proxy's (a smokescreen ACL,
 * sandbox-runtime or Claude Code settings, a gh-aw-firewall config, an OpenShell sandbox
 * policy), translated by the same
 * core as `npx tab policy import`. What the translation cannot express is listed under it,
 * by name; a file that does not read is named and nothing changes. Read only when the reader
 * picks or drops a file (never from a link).
 */
export function createPolicyImportView(policy: PolicyHolder): HTMLElement {
  const file = h("input", {
    attrs: {
      type: "file",
      accept: ".yaml,.yml,.json,.jsonc",
      "aria-label":
        "Open a policy file (this project's, a smokescreen ACL, srt or Claude Code settings, an awf config, an OpenShell policy)",
      "data-testid": "policy-import-file",
    },
  });
  // smokescreen decides per client role: the service to import (`--role` in the CLI); empty is the default rule.
  const role = h("input", {
    attrs: {
      type: "text",
      size: "10",
      placeholder: "role",
      "aria-label": "Role (a smokescreen ACL's service; empty: the default rule)",
      "data-testid": "policy-import-role",
    },
  });
  const status = h("div", { class: "policy-import-status", attrs: { "aria-live": "polite", "data-testid": "policy-import-status" } });

  const load = async (chosen: File) => {
    // A policy file is small; a large one is not a policy.
    if (chosen.size > 1024 * 1024) {
      status.textContent = `not applied: ${chosen.name} is ${chosen.size} bytes, more than a policy file (1 MiB)`;
      return;
    }
    const text = await chosen.text();
    const format = foreignPolicyFormat(text);
    if (!format && looksLikeLog(text)) {
      // A log opened where a policy goes: say where it belongs rather than "not a valid policy".
      const read = readLogLines(text);
      const label = read.ok && read.format ? LOG_FORMATS[read.format]?.label : "this page's log";
      status.textContent = `not applied: ${chosen.name} is a log (${label}), not a policy: drop it on the Replay panel to re-decide it and draft a policy from it in its format`;
      return;
    }
    if (!format) {
      const applied = await policy.replaceText(text, IMPORT_SOURCE);
      status.textContent = applied.ok ? `applied ${chosen.name}` : `not applied: ${chosen.name}: ${applied.errors.join("; ")}`;
      return;
    }
    const named = role.value.trim();
    const translated = POLICY_FORMATS[format]!.import(text, named === "" ? {} : { role: named });
    if (!translated.ok) {
      status.textContent = `not applied: ${chosen.name} is not valid ${POLICY_FORMATS[format]!.label}: ${translated.errors.join("; ")}`;
      return;
    }
    await policy.replace(translated.value, `${IMPORT_SOURCE} (${format})`);
    status.textContent = [`applied ${chosen.name}, read as ${POLICY_FORMATS[format]!.label}`, ...translated.notes].join("\n");
  };
  file.addEventListener("change", () => {
    const chosen = file.files?.[0];
    if (chosen) void load(chosen);
  });

  return h(
    "div",
    { class: "policy-import", attrs: { "data-testid": "policy-import" } },
    h("label", {}, "Open a policy file ", file),
    h("label", {}, " smokescreen role ", role),
    status,
  );
}

/** Whether a text is JSON lines (a log) rather than one policy document: its first two lines each an object. */
function looksLikeLog(text: string): boolean {
  const lines = text.split("\n", 3).filter((l) => l.trim() !== "");
  if (lines.length < 2) return false;
  return lines.every((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === "object" && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  });
}
