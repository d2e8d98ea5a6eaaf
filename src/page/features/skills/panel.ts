import type { EventLog } from "../../../log";
import {
  type AcquireDeps,
  acquireSkill,
  DEFAULT_REGISTRY,
  type SkillBlobStore,
  type SkillHandleRecord,
  type SkillHandleStore,
  type SkillHit,
  type SkillsFetch,
  searchSkills,
} from "../../../skills";
import { formatBytes, h, replaceChildren } from "../../chrome/dom";
import type { PageSkills, SkillChoices } from "../../services/types";
import { openInspection } from "./inspect";

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

const row = "display: flex; flex-wrap: wrap; gap: 6px; align-items: center";
const mono = "font-family: ui-monospace, monospace; font-size: 12px";

/**
 * The choosing view (docs/decisions/0003-skills-from-a-public-registry.md): search a registry, see sanitized hits, acquire one, see its
 * handle and provenance. It holds ids, handles, digests and verdicts only — never SKILL.md
 * text: nothing here reads a blob; the text opens only in the inspection view, on request.
 */
export function createSkillsView(deps: SkillsViewDeps): HTMLElement {
  const registry = h("input", {
    attrs: {
      type: "url",
      value: deps.registry.current(),
      "aria-label": "Skill registry origin",
      spellcheck: "false",
      style: "width: 14em",
    },
    on: { change: () => deps.registry.set(registry.value) },
  });
  const query = h("input", {
    attrs: { type: "search", placeholder: "search skills", "aria-label": "Search skills", spellcheck: "false", required: "" },
  });
  const searchStatus = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-testid": "skills-search-status" } });
  const hits = h("ol", {
    attrs: { "data-testid": "skills-hits", "aria-label": "Search hits", style: "margin: 4px 0; padding-left: 20px" },
  });
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

  const searchForm = h(
    "form",
    { attrs: { style: row, "aria-label": "Search a skill registry" } },
    h("label", {}, "Registry ", registry),
    query,
    h("button", { class: "small", attrs: { type: "submit" } }, "Search"),
    searchStatus,
  );
  const acquireForm = h(
    "form",
    { attrs: { style: row, "aria-label": "Acquire a skill by address" } },
    address,
    h("button", { class: "small", attrs: { type: "submit" } }, "Acquire"),
  );

  searchForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void search();
  });
  acquireForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const ref = address.value.trim();
    if (ref !== "") void acquire(ref);
  });

  async function search(): Promise<void> {
    searchStatus.textContent = "searching…";
    replaceChildren(hits);
    const outcome = await searchSkills({ query: query.value, registry: registry.value.trim() || DEFAULT_REGISTRY }, deps);
    if (!outcome.ok) {
      searchStatus.textContent = `refused: ${outcome.verdict.code} — ${outcome.verdict.reason}`;
      return;
    }
    const dropped = Object.entries(outcome.dropped.byReason).map(([why, n]) => `${n} ${why}`);
    searchStatus.textContent =
      `${outcome.hits.length} hits from ${outcome.registry}, ordered by id` +
      (outcome.dropped.count > 0 ? ` · ${outcome.dropped.count} registry entries dropped (${dropped.join(", ")})` : "");
    replaceChildren(hits, ...outcome.hits.map(hitItem));
  }

  // Install counts are forgeable (anyone can inflate them with an unauthenticated request): labelled, never sorted on.
  const hitItem = (hit: SkillHit) =>
    h(
      "li",
      { attrs: { "data-skill-id": hit.id, style: "margin: 2px 0" } },
      h("span", { attrs: { "data-testid": "skill-name" } }, hit.name),
      " ",
      h("span", { attrs: { style: `color: var(--muted); ${mono}` } }, hit.id),
      " ",
      h(
        "span",
        { class: "counters", attrs: { "data-testid": "skill-installs" } },
        `installs (unverified): ${hit.installsUnverified === null ? "none given" : String(hit.installsUnverified)}`,
      ),
      " ",
      h("button", { class: "small", attrs: { type: "button" }, on: { click: () => void acquire(hit.id) } }, "Acquire"),
    );

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
      progress.appendChild(h("li", {}, `acquisition failed: ${(error as Error).message}`));
    } finally {
      unsubscribe();
    }
  }

  async function refreshHandles(): Promise<void> {
    const records = await deps.handles.list();
    replaceChildren(handleList, ...(records.length === 0 ? ["no skills acquired yet"] : records.reverse().map(handleItem)));
  }

  const handleItem = (record: SkillHandleRecord) => {
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
      handleChoices(record),
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
  };

  /** Two operator decisions per handle, both off by default: attach it to runs; allow its scripts for this exact pin. */
  const handleChoices = (record: SkillHandleRecord) => {
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
  };

  void refreshHandles();
  return h(
    "div",
    { class: "panel-header", attrs: { "data-testid": "skills-choosing-view" } },
    searchForm,
    hits,
    acquireForm,
    progress,
    h("h2", { attrs: { style: "font-size: 13px; margin: 6px 0 2px" } }, "Acquired skills (handle and provenance)"),
    inspectNote,
    h("div", { attrs: { style: "max-height: 30vh; overflow: auto" } }, handleList),
  );
}
