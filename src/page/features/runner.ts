import { toHex } from "../../bytes";
import type { LogEvent } from "../../log";
import { pageCas } from "../cache-instance";
import { h, replaceChildren } from "../dom";
import { createEventPanel, type Row } from "../panels";
import { harnessFromHref } from "../resolve-link";
import { type RunOptions, type RunResult, runAgent } from "../runner-session";
import { pageSkills } from "../skills-stores";
import type { FeatureContext } from "./context";

function runnerRow(e: LogEvent): Row | null {
  if (e.kind === "runner.step")
    return {
      tone: e.level === "error" ? "refused" : e.level === "warning" ? "warn" : "info",
      cells: [e.source, e.step, e.message],
      details: [
        ["run", e.run],
        ["outcome", e.outcome ?? ""],
      ],
    };
  if (e.kind === "scenario" && e.id.startsWith("run-"))
    return {
      tone: e.phase === "failed" || e.phase === "interrupted" ? "refused" : e.phase === "done" ? "ok" : "info",
      cells: [e.id, e.phase, e.message],
    };
  return null;
}

/**
 * "Run agent" (issue 9): resolves the harness (the runner demo, or `?harness=`), delivers it
 * to the guest over the 9p share, and types `sh /mnt/tab/bin/tab-run /mnt/tab/run/<id>` into
 * the terminal. `?run=1` runs it once the guest is up, so a shared link runs its agent.
 */
export function mount(ctx: FeatureContext): void {
  const skills = pageSkills(ctx.log);
  const deps = {
    log: ctx.log,
    cas: pageCas(ctx.log),
    guest: ctx.guest,
    randomId: () => toHex(crypto.getRandomValues(new Uint8Array(4))),
    skills: {
      store: skills.store,
      handles: skills.handles,
      attached: () => skills.choices.attached(),
      scriptPins: () => skills.choices.scriptPins(),
    },
    turns: ctx.turns,
  };

  const status = h("span", { class: "runner-status", attrs: { "aria-live": "polite" } });
  const makeButton = (attrs: Record<string, string>) =>
    h(
      "button",
      {
        class: "small",
        title: "Deliver the resolved harness to the guest and run its agent under Landlock, behind the proxy",
        attrs: { type: "button", ...attrs },
        on: { click: () => void run().catch(() => undefined) },
      },
      "Run agent",
    );
  const buttons = [makeButton({ "data-run-agent": "" }), makeButton({})];
  let busy: Promise<RunResult> | null = null;

  const run = (options: RunOptions = {}): Promise<RunResult> => {
    if (busy) return Promise.reject(new Error("a run is already in progress"));
    // What to run: the caller's choice, else the harness field (what the user typed or the
    // link set), else the runner's own demo.
    const harness = options.harness ?? (ctx.layout.harnessInput.value.trim() || harnessFromHref(location.href).harness || "demo");
    for (const b of buttons) b.disabled = true;
    replaceChildren(status, `running ${harness}…`);
    ctx.selectPanel("runner");
    busy = runAgent(deps, { ...options, harness })
      .then((result) => {
        replaceChildren(status, `${result.id}: ${result.outcome} (${result.stage})`);
        return result;
      })
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        ctx.log.append({
          kind: "runner.step",
          run: "",
          source: "runner",
          step: "run",
          outcome: "failed",
          level: "error",
          message: `run failed: ${message}`,
        });
        replaceChildren(status, `failed: ${message}`);
        throw error;
      })
      .finally(() => {
        busy = null;
        for (const b of buttons) b.disabled = false;
      });
    return busy;
  };

  // The button sits in the Resolver panel's header (next to what was resolved) and in the
  // Runner panel, which shows the run's steps as the guest reports them.
  ctx
    .panel("resolver")
    .addHeader(
      h("div", { class: "runner-controls" }, buttons[0]!, " ", h("span", {}, "runs the harness's agent in the guest"), " ", status),
    );
  ctx.addPanel(
    createEventPanel(
      {
        id: "runner",
        title: "Runner",
        kinds: ["runner.step", "scenario"],
        columns: ["source", "step", "what happened"],
        row: runnerRow,
        header: h("div", { class: "runner-controls" }, buttons[1]!),
      },
      ctx.log,
    ),
  );
  ctx.expose("runner", { run });

  if (harnessFromHref(location.href).params.get("run") === "1") {
    void ctx.guest.then(() => run()).catch(() => undefined);
  }
}
