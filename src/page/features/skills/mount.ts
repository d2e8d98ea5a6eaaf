import type { LogEvent } from "../../../log";
import { createEventPanel, type Row } from "../../panels";
import type { FeatureContext } from "../context";
import { createSkillsView } from "./panel";

/**
 * Skills' page side (docs/decisions/0003-skills-from-a-public-registry.md): a Skills panel to search a registry, acquire a skill
 * behind a handle (bytes in the CAS, records in their own IndexedDB table) and read its
 * provenance; the text itself only in the separate inspection view.
 */
export function mount(ctx: FeatureContext): void {
  const { store, handles, choices, registry } = ctx.services.skills;
  const view = createSkillsView({ log: ctx.log, fetch: ctx.services.fetch, store, handles, choices, registry, showDialog: ctx.showDialog });
  ctx.panels.add(
    createEventPanel(
      {
        id: "skills",
        title: "Skills",
        kinds: ["skills.step"],
        columns: ["verdict", "step", "id", "handle", "detail"],
        row: skillsRow,
        header: view,
      },
      ctx.log,
    ),
  );
  ctx.expose("skills", { store, handles, choices });
}

function skillsRow(e: LogEvent): Row | null {
  if (e.kind !== "skills.step") return null;
  return {
    tone: e.allowed ? "ok" : "refused",
    cells: [`${e.allowed ? "✓" : "✗"} ${e.code}`, e.step, e.id, e.handle ?? "", e.detail],
    details: [
      ["reason", e.reason],
      ["by", e.by],
      ...(e.url ? ([["url", e.url]] as [string, string][]) : []),
      ...(e.sha256 ? ([["sha256", e.sha256]] as [string, string][]) : []),
    ],
  };
}
