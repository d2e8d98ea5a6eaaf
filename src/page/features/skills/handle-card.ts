import type { SkillHandleRecord } from "../../../skills";
import { formatBytes, h } from "../../chrome/dom";
import { openInspection } from "./inspect";
import type { SkillsViewDeps } from "./panel";
import { mono, row } from "./style";

/**
 * One acquired skill as the choosing view lists it: its handle and provenance (ids, URLs,
 * digests; never its text), the operator's two choices, and the button that opens its text in
 * the separate inspection view. `inspectNote` says when the text could not be opened.
 */
export function handleCard(record: SkillHandleRecord, deps: SkillsViewDeps, inspectNote: HTMLElement): HTMLElement {
  const fields: [string, string][] = [
    ["handle", record.handle],
    ["discovery id", record.discoveryId],
    ["method", record.method],
    ["source", record.sourceUrl],
    ["commit", record.commitSha ?? "(none)"],
    ["index digest", record.indexDigest ?? "(none)"],
    ["pin", record.pin],
    ["SKILL.md sha256", record.skillMdSha256],
    ["SKILL.md size", formatBytes(record.skillMdBytes)],
    [
      "scripts held (not run)",
      record.scripts.map((s) => `${s.path} ${s.sha256.slice(0, 12)}… ${formatBytes(s.bytes)}`).join("\n") || "(none)",
    ],
    ["resolved at", record.resolvedAt ?? "(n/a)"],
    ["received at", record.receivedAt],
  ];
  return h(
    "article",
    {
      attrs: {
        "data-handle": record.handle,
        "data-skill-id": record.discoveryId,
        style: "border-top: 1px solid var(--line); padding: 4px 0",
      },
    },
    h(
      "dl",
      { attrs: { style: `display: grid; grid-template-columns: max-content 1fr; gap: 0 8px; margin: 0; ${mono}` } },
      ...fields.flatMap(([k, v]) => [
        h("dt", { attrs: { style: "color: var(--muted)" } }, k),
        h("dd", { attrs: { style: "margin: 0; overflow-wrap: anywhere; white-space: pre-wrap" } }, v),
      ]),
    ),
    handleChoices(record, deps),
    h(
      "button",
      {
        class: "small",
        title: "Open the SKILL.md text in a separate view: the publisher's text, untrusted",
        attrs: { type: "button", style: "border-color: var(--warn); color: var(--warn)" },
        on: {
          click: () => {
            inspectNote.textContent = "";
            void openInspection(record.handle, deps).then((refused) => {
              if (refused !== null) inspectNote.textContent = `could not open: ${refused}`;
            });
          },
        },
      },
      "Inspect text (untrusted)",
    ),
  );
}

/** Two operator decisions per handle, both off by default: attach it to runs; allow its scripts for this exact pin. */
function handleChoices(record: SkillHandleRecord, deps: SkillsViewDeps): HTMLElement {
  const checkbox = (label: string, title: string, checked: boolean, attrs: Record<string, string>, change: (on: boolean) => void) => {
    const box = h("input", { attrs: { type: "checkbox", ...attrs } });
    box.checked = checked;
    box.addEventListener("change", () => change(box.checked));
    return h("label", { title, attrs: { style: "margin-right: 12px" } }, box, ` ${label}`);
  };
  const note = (message: string) => deps.log.append({ kind: "note", level: "info", source: "skills", message });
  return h(
    "div",
    { attrs: { style: row } },
    checkbox(
      "attach to agent runs",
      "The next agent run is given this skill's text by handle (logged); this view never shows it",
      deps.choices.attached().includes(record.handle),
      { "data-attach": record.handle },
      (on) => {
        deps.choices.setAttached(record.handle, on);
        note(
          `${on ? "attach" : "no longer attach"} skill handle ${record.handle} (${record.discoveryId}) ${on ? "to" : "from"} agent runs`,
        );
      },
    ),
    record.scripts.length === 0
      ? h("span", { class: "counters" }, "no scripts")
      : checkbox(
          `allow its ${record.scripts.length} scripts for pin ${record.pin}`,
          "Scripts run only where the operator allows this exact pin; off by default",
          deps.choices.scriptPins().has(record.pin),
          { "data-allow-scripts": record.pin },
          (on) => {
            deps.choices.setScriptsAllowed(record.pin, on);
            note(`${on ? "allowed" : "withdrew"} skill scripts for pin ${record.pin}`);
          },
        ),
  );
}
