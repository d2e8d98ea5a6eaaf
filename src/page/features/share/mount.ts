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
import { canonicalJson, confineLinkPolicy, DEFAULT_POLICY, type PolicyLoad, parsePolicy } from "../../../policy";
import { describePolicyChange, withoutToken } from "../../../trust";
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
  const { log } = ctx;
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

  // The top bar's Share button, the link it made, and what the link will not replay (commands
  // typed by hand, lesson steps) beside it; a policy too large for the link asks where it is
  // published in `refSlot`.
  const shareButton = h("button", { id: "share", attrs: { type: "button" } }, "Share");
  const shareOutput = h("input", {
    class: "share-output",
    attrs: { readonly: "", "aria-label": "Share link", tabindex: "-1", hidden: "" },
  });
  const leftOut = h("div", { class: "share-left-out", attrs: { "data-testid": "share-left-out", "aria-live": "polite", hidden: "" } });
  const refSlot = h("div", { attrs: { style: "display: contents" } });
  for (const element of [shareButton, shareOutput, leftOut, refSlot]) ctx.place("share", element);
  const showLink = async (url: string) => {
    shareOutput.value = url;
    shareOutput.hidden = false;
    leftOut.textContent = describeLeftOut(leftOutOfLink(log.events(), windows));
    leftOut.hidden = leftOut.textContent === "";
    shareOutput.select();
    try {
      await navigator.clipboard?.writeText(url);
    } catch {
      // The link is shown selected in the field either way.
    }
  };
  shareButton.addEventListener("click", () => {
    void (async () => {
      const policyJson = canonicalJson(ctx.policy.current());
      const policy = policyJson === canonicalJson(DEFAULT_POLICY) ? null : policyJson;
      const state = {
        harness: ctx.harness.value() || ctx.link.harness,
        policy,
        policyRef: null,
        scenarios: ran,
        expect: encodeSequence(sequenceOfRuns()),
        // What the sender allows beyond the default travels as a proposal the receiver must accept.
        allowPrefixes: ctx.services.orgAllowlist.entries().filter((e) => !ctx.services.orgAllowlist.defaults().includes(e)),
      };
      replaceChildren(refSlot);
      const packedLength = policy === null ? 0 : (await packPolicy(policy)).length;
      if (policy === null || packedLength <= MAX_INLINE_POLICY) return showLink(await buildShareUrl(ctx.link.href, state));
      // Too large for the link: by reference, once the sender says where it is published.
      const form = createPolicyRefForm({
        policyText: policy,
        packedLength,
        onReference: (policyRef) => void buildShareUrl(ctx.link.href, { ...state, policyRef }).then(showLink),
      });
      replaceChildren(refSlot, form);
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
  ctx.panels.add(panel);

  const replay = async () => {
    const { state, problems } = await readShareState(ctx.link);
    for (const message of problems) log.append({ kind: "note", level: "warning", source: "share link", message });
    const proposed = state.policy === null ? null : await readLinkPolicy(state.policy);
    if (proposed && !proposed.ok)
      log.append({
        kind: "note",
        level: "warning",
        source: "share link",
        message: `the link's policy is invalid: ${proposed.errors.join("; ")}`,
      });
    const confined = proposed?.ok ? confineLinkPolicy(proposed.policy) : null;
    const agent = ctx.link.run || state.scenarios.includes(AGENT_ACT) ? (state.harness ?? "the default harness") : null;
    if (!confined && !state.policyRef && state.scenarios.length === 0 && agent === null) return ctx.consent.withdraw("share");
    // A share link is material from a link (docs/decisions/0028): shown on the card, and nothing
    // of it is applied, fetched or typed until the reader accepts.
    const accepted = await ctx.consent.offer({
      kind: "share",
      scenarios: state.scenarios.filter((id) => id !== AGENT_ACT),
      agent,
      policy: confined ? { changes: describePolicyChange(ctx.policy.current(), confined.policy), refused: confined.refused } : null,
      policyRef: state.policyRef ? { url: withoutToken(state.policyRef), host: hostOf(state.policyRef) } : null,
    });
    if (!accepted) {
      replaceChildren(compare, "You rejected this share link: nothing was replayed, applied or fetched.");
      return;
    }
    let policy = confined?.policy ?? null;
    if (state.policyRef) {
      const fetched = await fetchPinnedPolicy(state.policyRef, ctx.services.fetch);
      const read = fetched.ok ? await readLinkPolicy(fetched.text) : null;
      if (!fetched.ok)
        log.append({
          kind: "note",
          level: "warning",
          source: "share link",
          message: `the link's policy was not applied (${fetched.verdict.code}, by ${fetched.verdict.by}): ${fetched.verdict.reason}; the default policy stays`,
        });
      else if (read && !read.ok)
        log.append({
          kind: "note",
          level: "warning",
          source: "share link",
          message: `the link's policy is invalid: ${read.errors.join("; ")}`,
        });
      else if (read?.ok) {
        const published = confineLinkPolicy(read.policy);
        for (const r of published.refused)
          log.append({
            kind: "note",
            level: "warning",
            source: "share link",
            message: `not applied from the link's policy: ${r.rule}: ${r.reason}`,
          });
        policy = published.policy;
      }
    }
    if (policy) await ctx.policy.replace(policy, "share link");
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
    ctx.panels.select("replay");
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

/** A policy a link carries, read as the Policy panel reads text. */
async function readLinkPolicy(text: string): Promise<PolicyLoad> {
  return parsePolicy(text);
}

function hostOf(ref: string): string {
  try {
    return new URL(ref).host;
  } catch {
    return "an unreadable address";
  }
}
