import type { EventLog } from "../log";
import { h, replaceChildren } from "./dom";
import type { Guest } from "./emulator/boot";
import { PROMPT } from "./emulator/boot";
import type { Scenario } from "./scenarios";

export interface ScenarioBar {
  run(id: string): Promise<void>;
}

/**
 * One button per verdict-table row. A click types the row's commands into the guest (so
 * the user sees exactly what ran), shows which panel to watch, and explains who decided.
 */
export function mountScenarioBar(options: {
  bar: HTMLElement;
  scenarios: readonly Scenario[];
  guest: Promise<Guest>;
  log: EventLog;
  selectPanel(id: string): void;
}): ScenarioBar {
  const { bar, scenarios, log } = options;
  const explanation = h("p", { class: "scenario-explanation", attrs: { "aria-live": "polite" } });
  let busy = false;

  const run = async (id: string) => {
    const scenario = scenarios.find((s) => s.id === id);
    if (!scenario || busy) return;
    busy = true;
    bar.setAttribute("aria-busy", "true");
    try {
      const guest = await options.guest;
      options.selectPanel(scenario.expect.panel);
      replaceChildren(explanation, h("strong", {}, `Row ${scenario.row}: ${scenario.title}. `), scenario.explanation);
      log.append({ kind: "scenario", id: scenario.id, phase: "start", message: scenario.commands.join(" && ") });
      for (const command of scenario.commands) {
        const mark = guest.console.mark;
        guest.console.type(`${command}\n`);
        await guest.console.waitFor(PROMPT, mark + command.length);
      }
      log.append({ kind: "scenario", id: scenario.id, phase: "done", message: `watch the ${scenario.expect.panel} panel` });
    } catch (error) {
      log.append({ kind: "scenario", id, phase: "failed", message: (error as Error).message });
    } finally {
      busy = false;
      bar.removeAttribute("aria-busy");
    }
  };

  replaceChildren(
    bar,
    h("span", { class: "scenario-label" }, "Scenarios (seed 004):"),
    ...scenarios.map((s) =>
      h(
        "button",
        {
          class: "small",
          title: s.explanation,
          attrs: { type: "button", "data-scenario": s.id },
          on: { click: () => void run(s.id) },
        },
        `${s.row}. ${s.title}`,
      ),
    ),
    explanation,
  );
  bar.hidden = scenarios.length === 0;
  return { run };
}
