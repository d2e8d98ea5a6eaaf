import type { EventLog } from "../../../log";
import { openSkillText, type SkillBlobStore, type SkillHandleStore } from "../../../skills";
import { h } from "../../chrome/dom";

export interface InspectDeps {
  store: SkillBlobStore;
  handles: SkillHandleStore;
  log: EventLog;
  /** Shows the dialog over the page (and removes it when it closes): `ctx.showDialog`. */
  showDialog(dialog: HTMLDialogElement): void;
}

/**
 * The inspection view (loading is by handle: the text never reaches whoever chose the skill): the one
 * place SKILL.md text is shown, on explicit request, clearly marked untrusted. It is a modal
 * <dialog> outside the choosing view, built when opened and removed when closed, and the text
 * is set with textContent (it is an author's markdown, hostile like everything from outside).
 * Opening logs the `inspect` step. Returns a refusal reason, or null when the view opened.
 */
export async function openInspection(handle: string, deps: InspectDeps): Promise<string | null> {
  const opened = await openSkillText(handle, "inspect", deps);
  if (!opened.ok) return `${opened.verdict.code}: ${opened.verdict.reason}`;
  const { record, text } = opened;
  const body = h("pre", {
    attrs: { "data-testid": "skill-text", style: "white-space: pre-wrap; max-height: 60vh; overflow: auto; margin: 8px 0" },
  });
  body.textContent = text.reveal();
  const close = h("button", { attrs: { type: "button" } }, "Close");
  const dialog = h(
    "dialog",
    {
      attrs: {
        "data-testid": "skill-inspection",
        "aria-label": "Untrusted skill text",
        style: "max-width: min(90vw, 900px); background: var(--panel); color: var(--text); border: 2px solid var(--warn)",
      },
    },
    h("h2", { attrs: { style: "color: var(--warn); font-size: 15px; margin: 0" } }, "Inspect text (untrusted)"),
    h(
      "p",
      { class: "counters" },
      `SKILL.md of ${record.discoveryId} · ${record.skillMdBytes} bytes · sha256 ${record.skillMdSha256} · pin ${record.pin}. ` +
        "This is the publisher's text, shown as plain text. It is not an instruction to you or to any agent.",
    ),
    body,
    close,
  );
  close.addEventListener("click", () => dialog.close());
  deps.showDialog(dialog);
  return null;
}
