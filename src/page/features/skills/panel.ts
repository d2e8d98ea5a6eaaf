import type { EventLog } from "../../../log";
import { messageOf } from "../../../platform";
import { type AcquireDeps, acquireSkill, type SkillBlobStore, type SkillHandleStore, type SkillsFetch } from "../../../skills";
import { h, replaceChildren } from "../../chrome/dom";
import type { PageSkills, SkillChoices } from "../../services/types";
import { handleCard } from "./handle-card";
import { createSearchView } from "./search-view";
import { mono, row } from "./style";

export interface SkillsViewDeps {
  log: EventLog;
  fetch: SkillsFetch;
  store: SkillBlobStore;
  handles: SkillHandleStore;
  /** What the next agent run attaches and which pins may run scripts (the operator's). */
  choices: SkillChoices;
  /** The registry field's value, shared with the model's `search_skills`. */
  registry: PageSkills["registry"];
  /** Shows the inspection view's dialog over the page (`ctx.showDialog`). */
  showDialog(dialog: HTMLDialogElement): void;
}

/**
 * The choosing view (docs/decisions/0003-skills-from-a-public-registry.md): search a registry, see sanitized hits, acquire one, see its
 * handle and provenance. It holds ids, handles, digests and verdicts only — never SKILL.md
 * text: nothing here reads a blob; the text opens only in the inspection view, on request.
 */
export function createSkillsView(deps: SkillsViewDeps): HTMLElement {
  const search = createSearchView(deps, (ref) => void acquire(ref));
  const address = h("input", {
    attrs: {
      type: "text",
      placeholder: "owner/repo/slug[@sha] or https://…/.well-known/agent-skills/index.json#name",
      "aria-label": "Skill address to acquire",
      spellcheck: "false",
      style: "width: 28em",
    },
  });
  const progress = h("ol", {
    attrs: { "data-testid": "skills-progress", "aria-live": "polite", style: `margin: 4px 0; padding-left: 20px; ${mono}` },
  });
  const handleList = h("div", { attrs: { "data-testid": "skills-handles" } });
  const inspectNote = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-testid": "skills-inspect-note" } });

  const acquireForm = h(
    "form",
    { attrs: { style: row, "aria-label": "Acquire a skill by address" } },
    address,
    h("button", { class: "small", attrs: { type: "submit" } }, "Acquire"),
  );

  acquireForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const ref = address.value.trim();
    if (ref !== "") void acquire(ref);
  });

  async function acquire(ref: string): Promise<void> {
    const from = deps.log.nextSeq;
    replaceChildren(progress, h("li", {}, `acquiring ${ref}…`));
    // Progress is the log's skills.step events for this acquisition: ids, URLs and verdicts only.
    const unsubscribe = deps.log.subscribe((e) => {
      if (e.kind !== "skills.step" || e.seq < from) return;
      progress.appendChild(
        h(
          "li",
          { attrs: { "data-step": e.step, "data-code": e.code, style: `color: ${e.allowed ? "var(--text)" : "var(--refused)"}` } },
          `${e.allowed ? "✓" : "✗"} ${e.step} ${e.code} · ${e.detail}${e.allowed ? "" : ` — ${e.reason}`}`,
        ),
      );
    });
    try {
      const acquireDeps: AcquireDeps = { fetch: deps.fetch, log: deps.log, store: deps.store, handles: deps.handles };
      const result = await acquireSkill(ref, acquireDeps);
      progress.appendChild(
        h(
          "li",
          { attrs: { "data-testid": "skills-acquire-result", "data-code": result.verdict.code } },
          result.ok ? `acquired: ${result.record.handle}` : `refused: ${result.verdict.code} — ${result.verdict.reason}`,
        ),
      );
      if (result.ok) await refreshHandles();
    } catch (error) {
      progress.appendChild(h("li", {}, `acquisition failed: ${messageOf(error)}`));
    } finally {
      unsubscribe();
    }
  }

  async function refreshHandles(): Promise<void> {
    const records = await deps.handles.list();
    replaceChildren(
      handleList,
      ...(records.length === 0 ? ["no skills acquired yet"] : records.reverse().map((record) => handleCard(record, deps, inspectNote))),
    );
  }

  void refreshHandles();
  return h(
    "div",
    { class: "panel-header", attrs: { "data-testid": "skills-choosing-view" } },
    search.form,
    search.hits,
    acquireForm,
    progress,
    h("h2", { attrs: { style: "font-size: 13px; margin: 6px 0 2px" } }, "Acquired skills (handle and provenance)"),
    inspectNote,
    h("div", { attrs: { style: "max-height: 30vh; overflow: auto" } }, handleList),
  );
}
