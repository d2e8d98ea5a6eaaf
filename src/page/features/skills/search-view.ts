import { DEFAULT_REGISTRY, type SkillHit, searchSkills } from "../../../skills";
import { h, replaceChildren } from "../../chrome/dom";
import type { SkillsViewDeps } from "./panel";
import { mono, row } from "./style";

/** Searching a registry: its origin (shared with the model's `search_skills`), the query, and the sanitized hits, each with Acquire. */
export function createSearchView(deps: SkillsViewDeps, acquire: (ref: string) => void): { form: HTMLElement; hits: HTMLElement } {
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
  const form = h(
    "form",
    { attrs: { style: row, "aria-label": "Search a skill registry" } },
    h("label", {}, "Registry ", registry),
    query,
    h("button", { class: "small", attrs: { type: "submit" } }, "Search"),
    searchStatus,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void search();
  });

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
      h("button", { class: "small", attrs: { type: "button" }, on: { click: () => acquire(hit.id) } }, "Acquire"),
    );

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
  return { form, hits };
}
