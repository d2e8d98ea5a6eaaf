import { canonicalJson, type Policy } from "../policy";
import { describeRuleChange, diffPolicies } from "../policy-tools";

/**
 * What material from a link proposes, in the words the consent card shows (docs/decisions/0028):
 * a lesson (its title, steps, the setup it types and the policy it applies), a share link's
 * replay (rows it types, an agent it runs, its policy or where that policy is published), a
 * Wisp relay. Each is a part; one card shows every part a link carries, and nothing of any
 * part happens until the reader accepts them together.
 */
export type ProposalPart = LessonPart | SharePart | RelayPart;
export type PartKind = ProposalPart["kind"];

export interface LessonPart {
  kind: "lesson";
  title: string;
  /** Where the lesson came from, as the reader should read it: "a draft link", or the URL's host. */
  from: string;
  steps: string[];
  /** The commands it types into the reader's guest before step 1. */
  setup: string[];
  /** The commands its `check:` items run in the guest (out of band) after the reader's own, to check the state left. */
  checks?: string[];
  policy: PolicyProposal | null;
}

export interface SharePart {
  kind: "share";
  /** The verdict-table rows it types, by id, in order. */
  scenarios: string[];
  /** The harness whose agent it runs (`?run=1` or an "agent" act), or null. */
  agent: string | null;
  policy: PolicyProposal | null;
  /** A policy published elsewhere (`?policy-ref=`): fetched only once the reader accepts. */
  policyRef: { url: string; host: string } | null;
}

export interface RelayPart {
  kind: "relay";
  /** The relay as shown (a token in it is never shown). */
  shown: string;
  host: string;
}

/** One line of a policy's change, as the card lists it: `+` added, `-` removed, `~` changed. */
export interface PolicyChangeLine {
  sign: "+" | "-" | "~";
  text: string;
}

export interface PolicyProposal {
  changes: PolicyChangeLine[];
  /** Rules the guarantees take out of the proposed policy, each with why (never applied). */
  refused: { rule: string; reason: string }[];
}

/**
 * The policy a link proposes against the reader's current one: its mode, plain-http handling,
 * default ports and vault ids, then rule by rule (a rule is a host's entry). The same words as
 * `npx tab policy learn`'s diff.
 */
export function describePolicyChange(current: Policy, proposed: Policy): PolicyChangeLine[] {
  const lines: PolicyChangeLine[] = [];
  const field = (name: string, before: unknown, after: unknown, show: (v: unknown) => string) => {
    if (canonicalJson(before ?? null) !== canonicalJson(after ?? null))
      lines.push({ sign: "~", text: `${name}: ${show(before)} → ${show(after)}` });
  };
  field("mode", current.mode ?? "enforce", proposed.mode ?? "enforce", String);
  field("plain http", current.http, proposed.http, String);
  field("default ports", current.ports, proposed.ports, (v) => (v as number[]).join(", "));
  field("vault ids", current.vaults, proposed.vaults, (v) => ((v as string[]).length === 0 ? "none" : (v as string[]).join(", ")));
  for (const change of diffPolicies(current, proposed)) {
    if (change.kind === "same") continue;
    const sign = change.kind === "add" ? "+" : change.kind === "remove" ? "-" : "~";
    lines.push({ sign, text: describeRuleChange(change).slice(2) });
  }
  return lines;
}

/** A relay or policy URL as the page shows it (the card, reasons, logs): a `token` parameter is never shown. */
export function withoutToken(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has("token")) return url;
    parsed.searchParams.set("token", "…");
    return parsed.href.replace(/token=[^&]*/, "token=…");
  } catch {
    return url;
  }
}
