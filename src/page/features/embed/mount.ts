import "./embed.css";
import type { ConsoleTaskResult } from "../../../console";
import { eventsInWindows, verdictSequence } from "../../../log";
import { h, replaceChildren } from "../../chrome/dom";
import type { Scenario } from "../../chrome/scenarios";
import type { PageContext } from "../context";
import { type EmbedRequest, embedExplanation, fullPlaygroundHref, ranExplanation, readEmbedRequest } from "./params";
import { EMBEDDABLE_ROWS } from "./rows";

/**
 * Embed mode for docs: `?embed=1&scenario=N` (a row of the verdict table,
 * by number or id) shows the terminal and the one panel that row's verdict lands in, under
 * a small bar with the row's title, a Run button and who decided and why — sized for an
 * 800×500 iframe. The guest starts as in the playground (from the saved snapshot when there
 * is one); the scenario runs only when the reader clicks Run. Everything else on the page is
 * hidden by embed.css, scoped under `.embed`.
 */
export function mount(ctx: PageContext): void {
  const request = readEmbedRequest(ctx.link, EMBEDDABLE_ROWS);
  if (request.mode === "off") return;
  // `?embed=1&lesson=…`: the lesson player (features/lessons) fills the embed; here only its shape.
  if (ctx.link.lesson !== null || ctx.link.hash.includes("lesson-draft=")) {
    ctx.setMode({ kind: "embed", panel: "lessons" });
    return;
  }
  const panel = request.mode === "scenario" ? request.scenario.expect.panel : "proxy";
  ctx.setMode({ kind: "embed", panel });
  ctx.panels.select(panel);

  const open = h(
    "a",
    {
      class: "embed-open",
      title: "The whole playground (all scenarios and panels) in a new tab",
      attrs: { href: fullPlaygroundHref(ctx.link.href), target: "_blank", rel: "noopener" },
    },
    "Open in the full playground ↗",
  );
  const bar = h("section", { class: "embed-bar", attrs: { "aria-label": "Scenario" } });
  ctx.place("page-top", bar);

  if (request.mode === "invalid") {
    replaceChildren(
      bar,
      h("div", { class: "embed-head" }, h("h1", { class: "embed-title" }, "Linux in a tab"), open),
      h("p", { class: "embed-explanation embed-error", role: "alert", attrs: { "data-testid": "embed-error" } }, request.message),
    );
    ctx.log.append({ kind: "note", level: "warning", source: "embed", message: request.message });
    ctx.expose("embed", exposed(request, panel, null));
    return;
  }

  const scenario = request.scenario;
  const status = h("span", { class: "embed-status", attrs: { "aria-live": "polite" } }, "starting the guest…");
  const runButton = h(
    "button",
    {
      class: "embed-run",
      title: `Type this row's commands into the guest: ${scenario.commands.join(" && ")}`,
      attrs: { type: "button", "data-embed-run": scenario.id, disabled: "" },
      on: { click: () => void run() },
    },
    "Run",
  );
  const explanation = h("p", { class: "embed-explanation" }, embedExplanation(scenario));
  replaceChildren(
    bar,
    h("div", { class: "embed-head" }, h("h1", { class: "embed-title" }, `${scenario.row}. ${scenario.title}`), runButton, status, open),
    explanation,
  );

  const listed = ctx.scenarios.listed(scenario.id);
  // Row 8 is in the scenario bar once the vault feature has mounted (after the guest is up):
  // until then the bar says what it waits for rather than "starting the guest".
  void ctx.guest.then(
    () => {
      status.textContent = "the guest is ready; setting up this row…";
    },
    () => undefined,
  );
  Promise.all([ctx.guest, listed]).then(
    () => {
      runButton.disabled = false;
      status.textContent = "ready: click Run";
    },
    () => {
      status.textContent = "the guest did not start (see the line above the terminal)";
    },
  );

  async function run(): Promise<void> {
    runButton.disabled = true;
    status.textContent = "running…";
    try {
      status.textContent = outcome(await ctx.scenarios.run(scenario.id));
    } finally {
      runButton.disabled = false;
    }
  }

  /** What the run produced, read from its window on the one log (the panel below shows the same events). */
  function outcome(result: ConsoleTaskResult): string {
    if (!result.window) return "the scenario did not start (another one was typing): try again";
    if (result.outcome === "failed" || result.outcome === "interrupted") return `did not finish: ${result.message}`;
    const seen = verdictSequence(eventsInWindows(ctx.log.events(), [result.window]));
    // The line under the bar says what this run's log recorded, not what the row expects.
    explanation.textContent = ranExplanation(scenario, seen);
    const verdicts = seen.map((s) => `${s.code} by ${s.by}`);
    const where = `the ${scenario.expect.panel} panel below`;
    return verdicts.length === 0 ? `done: see ${where}` : `done: ${verdicts.join(", ")} (see ${where})`;
  }

  ctx.expose("embed", exposed(request, panel, run));
}

function exposed(request: EmbedRequest, panel: Scenario["expect"]["panel"], run: (() => Promise<void>) | null) {
  return {
    scenario: request.mode === "scenario" ? request.scenario.id : null,
    message: request.mode === "invalid" ? request.message : null,
    panel,
    run,
  };
}
