import type { ConsoleTaskResult, ConsoleTurns, GuestPort } from "../../console";
import { KERNEL_REPORTS, runConsoleTask } from "../../console";
import type { EventLog } from "../../log";
import { h, replaceChildren } from "./dom";
import type { Scenario } from "./scenarios";

/** How a scenario run ended. */
export type { ConsoleTaskOutcome as ScenarioOutcome } from "../../console";

export interface ScenarioBar {
  /** Runs a row: waits for the console (earlier runs, a person's command), types its commands, resolves when it ended, with its window on the log. */
  run(id: string): Promise<ConsoleTaskResult>;
  /** Adds a row a feature provides (row 8 comes with the vault), before the explanation line. */
  add(scenario: Scenario): void;
  /** Resolves once the bar lists this row (at once for the page's own rows; row 8 once the vault feature added it). */
  listed(id: string): Promise<void>;
}

/**
 * One button per verdict-table row. A click types the row's commands into the guest through
 * the console driver (so the user sees exactly what ran), shows which panel to watch, and
 * explains who decided. A click while the shell is busy (a person's command, another row)
 * waits, shown next to the buttons with a Cancel; clicks run one after another.
 */
export function mountScenarioBar(options: {
  bar: HTMLElement;
  scenarios: readonly Scenario[];
  guest: Promise<GuestPort>;
  log: EventLog;
  selectPanel(id: string): void;
  turns: ConsoleTurns;
}): ScenarioBar {
  const { bar } = options;
  const scenarios: Scenario[] = [...options.scenarios];
  const explanation = h("p", { class: "scenario-explanation", attrs: { "aria-live": "polite" } });
  const buttons = new Map<string, HTMLButtonElement>();
  const waitingRuns = new Map<string, number>();
  const listeners = new Map<string, (() => void)[]>();

  const setWaiting = (id: string, delta: number) => {
    const n = (waitingRuns.get(id) ?? 0) + delta;
    waitingRuns.set(id, n);
    const button = buttons.get(id);
    if (!button) return;
    if (n > 0) button.dataset.state = "waiting";
    else delete button.dataset.state;
  };

  /** The "waits for the shell" chip of one run, with its Cancel. */
  const waitingChip = (scenario: Scenario, cancel: () => void) =>
    h(
      "span",
      { class: "scenario-waiting", attrs: { "data-waiting-scenario": scenario.id, role: "status" } },
      `${scenario.row}. ${scenario.title}: waits for the shell… `,
      h("button", { class: "small", attrs: { type: "button", "data-cancel-scenario": scenario.id }, on: { click: cancel } }, "Cancel"),
    );

  const run = async (id: string): Promise<ConsoleTaskResult> => {
    const scenario = scenarios.find((s) => s.id === id);
    if (!scenario) return { outcome: "failed", results: [], window: null, message: `no scenario ${id}` };
    const controller = new AbortController();
    let chip: HTMLElement | null = null;
    const showWaiting = (on: boolean) => {
      if (on && !chip) {
        chip = waitingChip(scenario, () => controller.abort(new Error("cancelled")));
        bar.insertBefore(chip, explanation);
        setWaiting(id, 1);
      } else if (!on && chip) {
        chip.remove();
        chip = null;
        setWaiting(id, -1);
      }
    };
    // A click while another scenario or a run holds the console waits its turn (console-task.ts).
    return runConsoleTask(options, {
      id: scenario.id,
      act: "scenario",
      commands: scenario.commands,
      startMessage: scenario.commands.join(" && "),
      signal: controller.signal,
      // A row the kernel decides is over once its audit record is in (it comes on the control line).
      ...(scenario.expect.by === "kernel" ? { lateReports: KERNEL_REPORTS } : {}),
      onWaiting: showWaiting,
      prepare: async () => {
        bar.setAttribute("aria-busy", "true");
        const done = () => bar.removeAttribute("aria-busy");
        try {
          await scenario.prepare?.();
        } catch (error) {
          done();
          throw error;
        }
        return done;
      },
      onStarted: () => {
        options.selectPanel(scenario.expect.panel);
        replaceChildren(explanation, h("strong", {}, `Row ${scenario.row}: ${scenario.title}. `), scenario.explanation);
      },
      conclude: (end) =>
        end.how === "ran"
          ? {
              message: `exit status ${end.results.at(-1)?.status ?? null}; watch the ${scenario.expect.panel} panel${end.settled ? "" : " (a connection it opened is still open)"}`,
            }
          : undefined,
    });
  };

  const button = (s: Scenario) => {
    const b = h(
      "button",
      {
        class: "small",
        title: s.explanation,
        attrs: { type: "button", "data-scenario": s.id },
        on: { click: () => void run(s.id) },
      },
      `${s.row}. ${s.title}`,
    );
    buttons.set(s.id, b);
    return b;
  };
  replaceChildren(bar, h("span", { class: "scenario-label" }, "Scenarios (the verdict table):"), ...scenarios.map(button), explanation);
  bar.hidden = scenarios.length === 0;
  return {
    run,
    add(scenario) {
      scenarios.push(scenario);
      bar.insertBefore(button(scenario), bar.querySelector(".scenario-waiting") ?? explanation);
      bar.hidden = false;
      for (const listener of listeners.get(scenario.id) ?? []) listener();
      listeners.delete(scenario.id);
    },
    listed(id) {
      if (scenarios.some((s) => s.id === id)) return Promise.resolve();
      return new Promise((resolve) => listeners.set(id, [...(listeners.get(id) ?? []), resolve]));
    },
  };
}
