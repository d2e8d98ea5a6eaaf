import type { ConsoleTurns } from "../../console";
import { connectionsClosed } from "../../console";
import type { EventLog } from "../../log";
import type { Guest } from "../emulator/boot";
import { h, replaceChildren } from "./dom";
import type { Scenario } from "./scenarios";

/** How a scenario run ended. */
export type ScenarioOutcome = "done" | "interrupted" | "failed" | "cancelled";

export interface ScenarioBar {
  /** Runs a row: waits for the console (earlier runs, a person's command), types its commands, resolves when it ended. */
  run(id: string): Promise<ScenarioOutcome>;
  /** Adds a row a feature provides (row 8 comes with the vault), before the explanation line. */
  add(scenario: Scenario): void;
}

/** How long a finished command's connections may take to close before the scenario ends anyway. */
const SETTLE_LIMIT_MS = 30_000;

/**
 * One button per verdict-table row. A click types the row's commands into the guest through
 * the console driver (so the user sees exactly what ran), shows which panel to watch, and
 * explains who decided. A click while the shell is busy (a person's command, another row)
 * waits, shown next to the buttons with a Cancel; clicks run one after another.
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
  const buttons = new Map<string, HTMLButtonElement>();
  const waitingRuns = new Map<string, number>();

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

  const run = async (id: string): Promise<ScenarioOutcome> => {
    const scenario = scenarios.find((s) => s.id === id);
    if (!scenario) return "failed";
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
    // Shown at once when something else holds the console; a run that starts now never flickers.
    const guestNow = await Promise.race([options.guest, Promise.resolve(null)]).catch(() => null);
    if (options.turns.busy || (guestNow !== null && !guestNow.console.shell.idle)) showWaiting(true);
    try {
      // A click while another scenario or a run holds the console waits its turn (console-turns.ts).
      return await options.turns.take(async () => {
        if (controller.signal.aborted) return "cancelled";
        bar.setAttribute("aria-busy", "true");
        let started = false;
        let fromSeq = log.nextSeq;
        try {
          const guest = await options.guest;
          await scenario.prepare?.();
          let status: number | null = null;
          for (const command of scenario.commands) {
            const result = await guest.driver.run(command, {
              signal: controller.signal,
              onWaiting: showWaiting,
              onStarted: () => {
                showWaiting(false);
                if (started) return;
                // Logged as its first command is typed: after any command a person was running.
                started = true;
                fromSeq = log.nextSeq;
                options.selectPanel(scenario.expect.panel);
                replaceChildren(explanation, h("strong", {}, `Row ${scenario.row}: ${scenario.title}. `), scenario.explanation);
                log.append({ kind: "scenario", id: scenario.id, phase: "start", message: scenario.commands.join(" && ") });
              },
            });
            status = result.status;
            if (result.interrupted) {
              log.append({
                kind: "scenario",
                id: scenario.id,
                phase: "interrupted",
                message: `interrupted: exit status ${result.status} (Ctrl+C) in ${command}`,
              });
              return "interrupted";
            }
          }
          // Its decisions are on the log once the connections its requests opened are closed.
          const settled = await connectionsClosed(log, fromSeq, SETTLE_LIMIT_MS);
          log.append({
            kind: "scenario",
            id: scenario.id,
            phase: "done",
            message: `exit status ${status}; watch the ${scenario.expect.panel} panel${settled ? "" : " (a connection it opened is still open)"}`,
          });
          return "done";
        } catch (error) {
          if (controller.signal.aborted && !started) return "cancelled";
          log.append({ kind: "scenario", id, phase: "failed", message: (error as Error).message });
          return "failed";
        } finally {
          bar.removeAttribute("aria-busy");
        }
      });
    } finally {
      showWaiting(false);
    }
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
    },
  };
}
