import { toHex } from "../../bytes";
import { createCas, createIdbStore } from "../../cas";
import type { LogEvent } from "../../log";
import { h, replaceChildren } from "../dom";
import { createEventPanel, type Row } from "../panels";
import { type RunOptions, type RunResult, runAgent } from "../runner-session";
import type { FeatureContext } from "./context";

const RUNNER_SOURCES = new Set(["runner", "tab-run", "tab-agent"]);

function runnerRow(e: LogEvent): Row | null {
  if (e.kind === "note" && RUNNER_SOURCES.has(e.source))
    return { tone: e.level === "error" ? "refused" : e.level === "warning" ? "warn" : "info", cells: [e.source, e.message] };
  if (e.kind === "scenario" && e.id.startsWith("run-"))
    return { tone: e.phase === "failed" ? "refused" : e.phase === "done" ? "ok" : "info", cells: [e.id, `${e.phase}: ${e.message}`] };
  return null;
}

/**
 * "Run agent" (issue 9): resolves the harness (the runner demo, or `?harness=`), delivers it
 * to the guest over the 9p share, and types `sh /mnt/tab/bin/tab-run /mnt/tab/run/<id>` into
 * the terminal. `?run=1` runs it once the guest is up, so a shared link runs its agent.
 */
export function mount(ctx: FeatureContext): void {
  const cas = createCas({ store: createIdbStore("linux-in-a-tab", "cas"), log: ctx.log });
  const deps = {
    log: ctx.log,
    cas,
    guest: ctx.guest,
    randomId: () => toHex(crypto.getRandomValues(new Uint8Array(4))),
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
    const harness = options.harness ?? ctx.params.get("harness") ?? "demo";
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
        ctx.log.append({ kind: "note", level: "error", source: "runner", message: `run failed: ${message}` });
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
        kinds: ["note", "scenario"],
        columns: ["source", "step"],
        row: runnerRow,
        header: h("div", { class: "runner-controls" }, buttons[1]!),
      },
      ctx.log,
    ),
  );
  ctx.expose("runner", { run });

  if (ctx.params.get("run") === "1") {
    void ctx.guest.then(() => run()).catch(() => undefined);
  }
}
