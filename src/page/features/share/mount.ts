import {
  compareSequences,
  createScenarioWindowTracker,
  decodeSequence,
  encodeSequence,
  eventsInWindows,
  type ScenarioWindow,
  type SequenceStep,
  verdictSequence,
} from "../../../log";
import { canonicalJson, DEFAULT_POLICY } from "../../../policy";
import { h, replaceChildren } from "../../chrome/dom";
import { createEventPanel } from "../../panels";
import type { FeatureContext } from "../context";
import { describeLeftOut, leftOutOfLink } from "./left-out";
import { buildShareUrl, fetchPinnedPolicy, MAX_INLINE_POLICY, packPolicy, readShareState } from "./link";
import { createPolicyRefForm } from "./policy-ref";

/** The act a share link uses for "run the harness's agent" (not a scenario id). */
export const AGENT_ACT = "agent";

/**
 * Share links that replay. The share button encodes the harness URL, the policy
 * (inline, deflated, when it differs from the default) and the scenarios run so far, plus the
 * verdict sequence they produced. Opening the link applies the same inputs, runs the same
 * scenarios, and the Replay panel compares the sender's sequence with the replay's.
 */
export function mount(ctx: FeatureContext): void {
  const { log, layout } = ctx;
  const ran: string[] = [];
  /** Verdicts produced while scenarios ran: their windows on the log. */
  const windows: ScenarioWindow[] = [];
  // An agent run logs its start while it may still wait for a row: windows pair by id.
  const tracker = createScenarioWindowTracker();
  log.subscribe((e) => {
    const window = tracker.feed(e);
    // A row a person stopped with Ctrl+C (or cancelled) is not what the row produces: the link
    // leaves it out, so a replay never types it and the sequence is only the rows that ran.
    if (!window || window.phase === "interrupted" || window.phase === "cancelled") return;
    // A lesson's commands belong to the lesson, not to the verdict table a link replays.
    if (window.act === "lesson-step") return;
    // An agent run replays as the act "agent": the receiver runs the same harness's agent in its own guest.
    ran.push(window.act === "agent-run" ? AGENT_ACT : window.id);
    windows.push(window);
  });
  const sequenceOfRuns = (): SequenceStep[] => verdictSequence(eventsInWindows(log.events(), windows));

  // What the link will not replay (commands typed by hand, lesson steps), beside the link.
  const leftOut = h("div", { class: "share-left-out", attrs: { "data-testid": "share-left-out", "aria-live": "polite", hidden: "" } });
  layout.shareOutput.after(leftOut);
  const showLink = async (url: string) => {
    layout.shareOutput.value = url;
    layout.shareOutput.hidden = false;
    leftOut.textContent = describeLeftOut(leftOutOfLink(log.events(), windows));
    leftOut.hidden = leftOut.textContent === "";
    layout.shareOutput.select();
    try {
      await navigator.clipboard?.writeText(url);
    } catch {
      // The link is shown selected in the field either way.
    }
  };
  layout.shareButton.addEventListener("click", () => {
    void (async () => {
      const policyJson = canonicalJson(ctx.policy.current());
      const policy = policyJson === canonicalJson(DEFAULT_POLICY) ? null : policyJson;
      const state = {
        harness: layout.harnessInput.value.trim() || ctx.link.harness,
        policy,
        policyRef: null,
        scenarios: ran,
        expect: encodeSequence(sequenceOfRuns()),
        // What the sender allows beyond the default travels as a proposal the receiver must accept.
        allowPrefixes: ctx.services.orgAllowlist.entries().filter((e) => !ctx.services.orgAllowlist.defaults().includes(e)),
      };
      layout.root.querySelector(".share-policy-ref")?.remove();
      const packedLength = policy === null ? 0 : (await packPolicy(policy)).length;
      if (policy === null || packedLength <= MAX_INLINE_POLICY) return showLink(await buildShareUrl(ctx.link.href, state));
      // Too large for the link: by reference, once the sender says where it is published.
      const form = createPolicyRefForm({
        policyText: policy,
        packedLength,
        onReference: (policyRef) => void buildShareUrl(ctx.link.href, { ...state, policyRef }).then(showLink),
      });
      layout.shareButton.parentElement?.after(form);
    })();
  });

  const compare = h(
    "div",
    { class: "panel-header", attrs: { "data-testid": "replay-compare" } },
    "Open a share link to replay its scenarios here.",
  );
  const panel = createEventPanel(
    {
      id: "replay",
      title: "Replay",
      kinds: ["scenario"],
      columns: ["phase", "scenario", "message"],
      // The verdict table's rows and agent runs: what a link replays (a lesson's commands are the lesson's).
      row: (e) =>
        e.kind === "scenario" && e.act !== "lesson-step"
          ? {
              tone: e.phase === "failed" || e.phase === "interrupted" ? "refused" : e.phase === "cancelled" ? "warn" : "info",
              cells: [e.phase, e.id, e.message],
            }
          : null,
    },
    log,
  );
  panel.addHeader(compare);
  ctx.addPanel(panel);

  const replay = async () => {
    const { state, problems } = await readShareState(ctx.link);
    for (const message of problems) log.append({ kind: "note", level: "warning", source: "share link", message });
    if (state.policyRef) {
      const fetched = await fetchPinnedPolicy(state.policyRef, ctx.services.fetch);
      if (!fetched.ok)
        log.append({
          kind: "note",
          level: "warning",
          source: "share link",
          message: `the link's policy was not applied (${fetched.verdict.code}, by ${fetched.verdict.by}): ${fetched.verdict.reason}; the default policy stays`,
        });
      else state.policy = fetched.text;
    }
    if (state.policy) {
      const applied = await ctx.policy.replaceText(state.policy, "share link");
      if (!applied.ok)
        log.append({
          kind: "note",
          level: "warning",
          source: "share link",
          message: `the link's policy is invalid: ${applied.errors.join("; ")}`,
        });
    }
    if (state.scenarios.length === 0) return;
    // The link's allowlist proposal (src/page/services/index.ts opens it) is answered before its acts run.
    await ctx.services.orgAllowlist.settled();
    await ctx.guest;
    // The link's own harness resolve (the resolve feature starts it on open) belongs to opening
    // the page, not to the replayed run: it must not land in the run's window of the log.
    await ctx.services.resolver.whenIdle();
    for (const id of state.scenarios) {
      if (id !== AGENT_ACT) await ctx.scenarios.run(id);
      else await ctx.services.runner.run().catch(() => undefined);
    }
    const expected = state.expect ? decodeSequence(state.expect) : null;
    const actual = sequenceOfRuns();
    ctx.selectPanel("replay");
    if (!expected) {
      replaceChildren(
        compare,
        `Replayed ${state.scenarios.length} scenario(s): ${encodeSequence(actual)}. The link carried no recorded sequence to compare with.`,
      );
      return;
    }
    const rows = compareSequences(expected, actual);
    const same = rows.every((r) => r.same);
    const fmt = (s: SequenceStep | null) => (s ? `${s.code} (by ${s.by})` : "—");
    replaceChildren(
      compare,
      h(
        "p",
        { attrs: { "data-testid": "replay-verdict" } },
        same ? "✓ The replay produced the sender's verdict sequence." : "✗ The replay differs from the sender's sequence.",
      ),
      h(
        "table",
        { class: "events" },
        h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "sender"), h("th", {}, "replay"))),
        h(
          "tbody",
          {},
          ...rows.map((r) =>
            h(
              "tr",
              { class: r.same ? "tone-ok" : "tone-refused", attrs: { "data-same": String(r.same) } },
              h("td", {}, String(r.index + 1)),
              h("td", {}, fmt(r.expected)),
              h("td", {}, fmt(r.actual)),
            ),
          ),
        ),
      ),
    );
  };
  const done = replay().catch((error: unknown) =>
    log.append({ kind: "note", level: "error", source: "share link", message: (error as Error).message }),
  );
  ctx.expose("share", { replayed: done, sequence: sequenceOfRuns });
}
