import type { LogEvent } from "../../../log";
import { h, replaceChildren } from "../../chrome/dom";
import { createEventPanel, type Row } from "../../panels";
import type { RunOptions } from "../../services/types";
import type { FeatureContext } from "../context";

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
  if (e.kind === "scenario" && e.act === "agent-run")
    return {
      tone:
        e.phase === "failed" || e.phase === "interrupted"
          ? "refused"
          : e.phase === "cancelled"
            ? "warn"
            : e.phase === "done"
              ? "ok"
              : "info",
      cells: [e.id, e.phase, e.message],
    };
  return null;
}

/**
 * "Run agent": resolves the harness (the runner demo, or `?harness=`), delivers it
 * to the guest over the 9p share, and types `sh /mnt/tab/bin/tab-run /mnt/tab/run/<id>` into
 * the terminal. `?run=1` runs it once the guest is up, so a shared link runs its agent.
 */
export function mount(ctx: FeatureContext): void {
  const { runner } = ctx.services;
  // The run's status (and its waiting chip with a Cancel) shows beside both buttons.
  const statuses = [0, 1].map(() => h("span", { class: "runner-status", attrs: { "aria-live": "polite" } }));
  const show = (content: () => Node | string) => {
    for (const status of statuses) replaceChildren(status, content());
  };
  const makeButton = (attrs: Record<string, string>) =>
    h(
      "button",
      {
        class: "small",
        title: "Deliver the resolved harness to the guest and run its agent under Landlock, behind the proxy",
        attrs: { type: "button", ...attrs },
        on: { click: () => void runner.run().catch(() => undefined) },
      },
      "Run agent",
    );
  const buttons = [makeButton({ "data-run-agent": "" }), makeButton({})];
  runner.subscribe((state) => {
    for (const b of buttons) b.disabled = state.phase === "running" || state.phase === "waiting";
    if (state.phase === "waiting")
      show(() =>
        h(
          "span",
          { class: "scenario-waiting", attrs: { "data-waiting-run": "", role: "status" } },
          `${state.harness}: waits for the shell… `,
          h("button", { class: "small", attrs: { type: "button", "data-cancel-run": "" }, on: { click: () => runner.cancel() } }, "Cancel"),
        ),
      );
    else if (state.phase === "running") {
      show(() => `running ${state.harness}…`);
      ctx.panels.select("runner");
    } else if (state.phase === "done") show(() => `${state.result.id}: ${state.result.outcome} (${state.result.stage})`);
    else show(() => `failed: ${state.message}`);
  });

  // The button sits in the Resolver panel's header (next to what was resolved) and in the
  // Runner panel, which shows the run's steps as the guest reports them.
  ctx.panels.addHeader(
    "resolver",
    h("div", { class: "runner-controls" }, buttons[0]!, " ", h("span", {}, "runs the harness's agent in the guest"), " ", statuses[0]!),
  );
  ctx.panels.add(
    createEventPanel(
      {
        id: "runner",
        title: "Runner",
        kinds: ["runner.step", "scenario"],
        columns: ["source", "step", "what happened"],
        row: runnerRow,
        header: h("div", { class: "runner-controls" }, buttons[1]!, " ", statuses[1]!),
      },
      ctx.log,
    ),
  );
  ctx.expose("runner", { run: (options?: RunOptions) => runner.run(options) });

  // The link's own parameters, the pinned harness URL's fragment included (src/page/link.ts).
  if (ctx.link.run) {
    // Only once the reader accepted the link's card (docs/decisions/0028), and after the
    // operator has answered the link's org allowlist proposal, if it made one.
    void Promise.all([ctx.consent.granted("share"), ctx.guest, ctx.services.orgAllowlist.settled()])
      .then(([accepted]) => (accepted ? runner.run() : undefined))
      .catch(() => undefined);
  }
}
