import type { EventLog } from "../log";
import type { ConsoleTurns } from "./console-turns";
import { h, replaceChildren } from "./dom";
import type { Guest } from "./emulator/boot";
import { PROMPT } from "./emulator/boot";
import type { Scenario } from "./scenarios";

export interface ScenarioBar {
  run(id: string): Promise<void>;
  /** Adds a row a feature provides (row 8 comes with the vault), before the explanation line. */
  add(scenario: Scenario): void;
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
  turns: ConsoleTurns;
}): ScenarioBar {
  const { bar, log } = options;
  const scenarios: Scenario[] = [...options.scenarios];
  const explanation = h("p", { class: "scenario-explanation", attrs: { "aria-live": "polite" } });
  const run = async (id: string) => {
    const scenario = scenarios.find((s) => s.id === id);
    if (!scenario) return;
    // A click while another scenario or a run is typing waits its turn (console-turns.ts).
    await options.turns.take(async () => {
      bar.setAttribute("aria-busy", "true");
      try {
        const guest = await options.guest;
        await scenario.prepare?.();
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
        bar.removeAttribute("aria-busy");
      }
    });
  };

  const button = (s: Scenario) =>
    h(
      "button",
      {
        class: "small",
        title: s.explanation,
        attrs: { type: "button", "data-scenario": s.id },
        on: { click: () => void run(s.id) },
      },
      `${s.row}. ${s.title}`,
    );
  replaceChildren(bar, h("span", { class: "scenario-label" }, "Scenarios (seed 004):"), ...scenarios.map(button), explanation);
  bar.hidden = scenarios.length === 0;
  return {
    run,
    add(scenario) {
      scenarios.push(scenario);
      bar.insertBefore(button(scenario), explanation);
      bar.hidden = false;
    },
  };
}
