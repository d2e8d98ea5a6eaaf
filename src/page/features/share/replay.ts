import { decodeSequence, encodeSequence } from "../../../log";
import { confineLinkPolicy, type Policy, type PolicyLoad, parsePolicy } from "../../../policy";
import { describePolicyChange, withoutToken } from "../../../trust";
import { replaceChildren } from "../../chrome/dom";
import type { FeatureContext } from "../context";
import { fetchPinnedPolicy, readShareState } from "./link";
import { showComparison } from "./replay-view";
import { AGENT_ACT, type SharedRuns } from "./runs";

/**
 * Opening a share link applies the same inputs (once the reader accepts its card), runs the
 * same acts, and compares the sender's verdict sequence with the replay's in `compare`.
 */
export async function replayLink(ctx: FeatureContext, runs: SharedRuns, compare: HTMLElement): Promise<void> {
  const { log } = ctx;
  const { state, problems } = await readShareState(ctx.link);
  for (const message of problems) log.append({ kind: "note", level: "warning", source: "share link", message });
  const proposed = state.policy === null ? null : await readLinkPolicy(state.policy);
  if (proposed && !proposed.ok) warn(ctx, `the link's policy is invalid: ${proposed.errors.join("; ")}`);
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
  const policy = state.policyRef ? await publishedPolicy(ctx, state.policyRef, confined?.policy ?? null) : (confined?.policy ?? null);
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
  const actual = runs.sequence();
  ctx.panels.select("replay");
  if (!expected)
    replaceChildren(
      compare,
      `Replayed ${state.scenarios.length} scenario(s): ${encodeSequence(actual)}. The link carried no recorded sequence to compare with.`,
    );
  else showComparison(compare, expected, actual);
}

/** The policy a link names by reference, fetched and checked against its pin; `fallback` when it cannot be had. */
async function publishedPolicy(ctx: FeatureContext, ref: string, fallback: Policy | null): Promise<Policy | null> {
  const fetched = await fetchPinnedPolicy(ref, ctx.services.fetch);
  if (!fetched.ok) {
    warn(
      ctx,
      `the link's policy was not applied (${fetched.verdict.code}, by ${fetched.verdict.by}): ${fetched.verdict.reason}; the default policy stays`,
    );
    return fallback;
  }
  const read = await readLinkPolicy(fetched.text);
  if (!read.ok) {
    warn(ctx, `the link's policy is invalid: ${read.errors.join("; ")}`);
    return fallback;
  }
  const published = confineLinkPolicy(read.policy);
  for (const r of published.refused) warn(ctx, `not applied from the link's policy: ${r.rule}: ${r.reason}`);
  return published.policy;
}

const warn = (ctx: FeatureContext, message: string) => ctx.log.append({ kind: "note", level: "warning", source: "share link", message });

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
