import type { Decider } from "../log";
import { hostKey } from "../policy";
import { mainOutcome, type Outcome, outcomeOf } from "./outcome";
import { compileOutputPattern, judgedOutput, OUTPUT_JUDGED_MAX_CHARS } from "./output-pattern";
import type { ExpectItem, LessonStep } from "./schema";
import type { CommandWindow } from "./window";

export interface ItemResult {
  item: ExpectItem;
  met: boolean;
  /** What was seen for this item, in words (shown for an unmet item, logged on `lesson.step`). */
  detail: string;
}

export interface StepJudgement {
  passed: boolean;
  items: ItemResult[];
  /** The decision or kernel result that decided it (passed) or that happened instead (failed). */
  decisive: { kind: string; code?: string; by?: Decider; target?: string; reason: string } | null;
  /** One sentence a learner reads: what happened, which component decided. */
  explanation: string;
}

const STATUS_SIGINT = 130;

const contains = (haystack: string | undefined, needle: string) => (haystack ?? "").toLowerCase().includes(needle.toLowerCase());
// A name read as the proxy reads it (`HOST.` is `host`, `0x7f.1` is `127.0.0.1`).
const sameName = (a: string, b: string) => hostKey(a) === hostKey(b);

function wanted(item: Extract<ExpectItem, { verdict: string }>): string {
  return `${item.of === "tunnel" ? "a CONNECT (the tunnel) decided" : "a decision"} ${item.verdict}${item.by ? ` by ${item.by}` : ""}${item.target ? ` for a target containing "${item.target}"` : ""}`;
}

type VerdictItem = Extract<ExpectItem, { verdict: string }>;

/**
 * Whether a decision is one a `verdict` item may be met by. By default the request's own: a
 * CONNECT that opened a tunnel is not (the request inside it decides), a CONNECT refused is
 * (the request never got further). `of: tunnel` asks for the CONNECT alone.
 */
function inScope(item: VerdictItem, o: Outcome): boolean {
  if (o.allowed === undefined) return false;
  if (item.of === "tunnel") return o.about === "tunnel";
  return !(o.about === "tunnel" && o.allowed);
}

/** Why a decision that matched an item is not the request's outcome after all: it was then refused, or its body cut short. */
function failedAfter(o: Outcome, outcomes: readonly Outcome[]): string | null {
  if (o.about === "tunnel") return null;
  if (o.bodyCut) return `${o.sentence}: the request failed after its status line`;
  const later = outcomes.slice(outcomes.indexOf(o) + 1);
  const refused = later.find((l) => l.allowed === false && o.request !== undefined && l.request === o.request);
  return refused ? `then ${refused.sentence}` : null;
}

/** What the request inside a served tunnel met, when the item asked about the request and the tunnel is all that matched. */
function insideTunnel(item: VerdictItem, outcomes: readonly Outcome[]): string | null {
  if (item.of === "tunnel") return null;
  const tunnels = outcomes.filter(
    (o) =>
      o.about === "tunnel" &&
      o.allowed &&
      o.code === item.verdict &&
      (!item.by || o.by === item.by) &&
      (!item.target || contains(o.target, item.target)),
  );
  for (const t of tunnels) {
    const inside = outcomes.filter((o) => o.tunnel !== undefined && o.tunnel === t.request);
    const refused = inside.find((o) => o.allowed === false);
    const tail = "a verdict item judges the request, not the tunnel that carried it (`of: tunnel` asks for the CONNECT)";
    if (refused) return `${t.sentence}, but the request inside it did not succeed: ${refused.sentence}; ${tail}`;
    const cut = inside.find((o) => o.bodyCut);
    if (cut) return `${t.sentence}, but the request inside it failed: ${cut.sentence}; ${tail}`;
    if (inside.length === 0) return `${t.sentence}, but no request inside it was decided; ${tail}`;
  }
  return null;
}

function checkVerdict(item: VerdictItem, outcomes: readonly Outcome[]): { met: boolean; detail: string; matched: Outcome | null } {
  const candidates = outcomes.filter(
    (o) =>
      inScope(item, o) && o.code === item.verdict && (!item.by || o.by === item.by) && (!item.target || contains(o.target, item.target)),
  );
  let failed: string | null = null;
  for (const o of candidates) {
    const after = failedAfter(o, outcomes);
    if (after === null) return { met: true, detail: o.sentence, matched: o };
    failed ??= `${o.sentence}, ${after}`;
  }
  const why = failed ?? insideTunnel(item, outcomes) ?? seenCodes(outcomes);
  return { met: false, detail: `expected ${wanted(item)}; ${why}`, matched: null };
}

function seenCodes(outcomes: readonly Outcome[]): string {
  const decisions = outcomes.filter((o) => o.allowed !== undefined && !(o.own && o.allowed));
  if (decisions.length === 0) return "no decision was logged for this command";
  return `the log has ${decisions.map((o) => `${o.code} by ${o.by}${o.target ? ` (${o.target})` : ""}`).join(", ")}`;
}

function statusWords(window: CommandWindow): string {
  if (window.interrupted) return "it was interrupted (Ctrl+C, status 130)";
  if (window.status === null) return "it has no end mark (the shell never reported a status)";
  return `it exited with status ${window.status}`;
}

/**
 * How long judging one command may take: output items are matched until the clock passes
 * `deadline`; an item reached after it is unmet, `judge-timed-out`. Each match is linear and
 * capped (src/lessons/output-pattern.ts), so the overrun is at most one match.
 */
export interface JudgeBudget {
  /** The clock's reading after which no further item is judged. */
  deadline: number;
  now: () => number;
}

/** Judging's default budget, the same in every host: 2 s from its start on Date.now. */
export const JUDGE_BUDGET_MS = 2000;

export const judgeBudget = (ms: number = JUDGE_BUDGET_MS, now: () => number = Date.now): JudgeBudget => ({ deadline: now() + ms, now });

interface Check {
  result: ItemResult;
  /** The outcome this item matched, when it is about one. */
  matched: Outcome | null;
}

function checkOutput(source: string, window: CommandWindow, budget: JudgeBudget): { met: boolean; detail: string } {
  if (budget.now() > budget.deadline)
    return { met: false, detail: `judge-timed-out: judging ran past its time limit before /${source}/ was tried` };
  const compiled = compileOutputPattern(source);
  if (!compiled.ok) return { met: false, detail: `${compiled.code}: /${source}/ cannot be judged: ${compiled.reason}` };
  const { text, cut } = judgedOutput(window.output);
  const met = compiled.pattern.test(text);
  const scope = cut ? ` (its last ${OUTPUT_JUDGED_MAX_CHARS} characters)` : "";
  if (met) return { met, detail: `the output${scope} matches /${source}/` };
  const excerpt = window.output.trim().slice(0, 120);
  return {
    met,
    detail: `expected output${scope} matching /${source}/; the output was ${excerpt === "" ? "empty" : JSON.stringify(excerpt)}`,
  };
}

function check(item: ExpectItem, window: CommandWindow, outcomes: readonly Outcome[], budget: JudgeBudget): Check {
  const done = (met: boolean, detail: string, matched: Outcome | null = null): Check => ({ result: { item, met, detail }, matched });
  if ("verdict" in item) {
    const judged = checkVerdict(item, outcomes);
    return done(judged.met, judged.detail, judged.matched);
  }
  if ("exit" in item) {
    const status = window.status;
    const met =
      status !== null &&
      (item.exit === "nonzero" ? status !== 0 : status === item.exit) &&
      !(window.interrupted && item.exit !== STATUS_SIGINT);
    const want = item.exit === "nonzero" ? "a nonzero exit status" : `exit status ${item.exit}`;
    return done(met, met ? `${statusWords(window)}` : `expected ${want}; ${statusWords(window)}`);
  }
  if ("output" in item) {
    const judged = checkOutput(item.output, window, budget);
    return done(judged.met, judged.detail);
  }
  if ("kernel" in item) {
    const results = outcomes.filter((o) => o.kind === "kernel.result");
    const hit = results.find((o) => o.result === item.kernel);
    if (hit) return done(true, hit.sentence, hit);
    return done(
      false,
      results.length === 0
        ? `expected the kernel to answer ${item.kernel}; no kernel result was reported (only tcpconnect reports one)`
        : `expected the kernel to answer ${item.kernel}; ${results.map((o) => o.sentence).join("; ")}`,
    );
  }
  if ("dns" in item) {
    const queries = outcomes.filter((o) => o.kind === "wire.dns");
    const hit = queries.find((o) => sameName(o.target ?? "", item.dns));
    if (hit) return done(true, hit.sentence, hit);
    return done(
      false,
      queries.length === 0
        ? `expected a DNS query for ${item.dns} on the wire; none crossed it`
        : `expected a DNS query for ${item.dns}; the wire saw ${queries.map((o) => o.target).join(", ")}`,
    );
  }
  if ("check" in item) return done(...checkRan(item, window));
  const count = window.events.filter((e) => e.kind === item.absent).length;
  return done(
    count === 0,
    count === 0 ? `no ${item.absent} event in the command's window` : `expected no ${item.absent}; the window has ${count}`,
  );
}

/** A `check` item: met when the check, run after the command, exited 0 within its time. */
function checkRan(item: Extract<ExpectItem, { check: string }>, window: CommandWindow): [boolean, string] {
  const ran = window.checks?.find((c) => c.check === item.check);
  if (!ran) return [false, `the check \`${item.check}\` was not run`];
  if (ran.timedOut) return [false, `the check \`${item.check}\` did not finish within its time limit`];
  if (ran.status === 0) return [true, `the check \`${item.check}\` exited 0`];
  const said = ran.output.trim().slice(0, 120);
  return [false, `the check \`${item.check}\` exited ${ran.status ?? "without a status"}${said ? `: ${JSON.stringify(said)}` : ""}`];
}

const decisiveOf = (o: Outcome | null): StepJudgement["decisive"] =>
  o ? { kind: o.kind, code: o.code, by: o.by, target: o.target, reason: o.reason } : null;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Judges one command against a step: every `expect` item must hold for this one command's
 * window (its marks, its output, the log events from its start to its settle). Prompts and
 * screen text other than the command's own output are never read. Output patterns run in a
 * linear-time engine within `budget` (JUDGE_BUDGET_MS from now unless a host gives its own).
 */
export function judgeStep(step: LessonStep, window: CommandWindow, budget: JudgeBudget = judgeBudget()): StepJudgement {
  const outcomes = window.events.map(outcomeOf).filter((o): o is Outcome => o !== null);
  const checks = step.expect.map((item) => check(item, window, outcomes, budget));
  const items = checks.map((c) => c.result);
  const passed = items.every((i) => i.met);
  const matched = checks.find((c) => c.matched !== null)?.matched ?? null;
  const decisive = passed ? (matched ?? mainOutcome(outcomes)) : mainOutcome(outcomes);
  const what = decisive ? decisive.sentence : `\`${window.command}\`: ${statusWords(window)}, and no decision was logged`;
  if (passed) return { passed, items, decisive: decisiveOf(decisive), explanation: `${capital(what)}.` };
  const unmet = items.filter((i) => !i.met).map((i) => i.detail);
  const interrupted = window.interrupted ? "The command was interrupted (Ctrl+C, status 130) before it finished. " : "";
  return {
    passed,
    items,
    decisive: decisiveOf(decisive),
    explanation: `${interrupted}What happened instead: ${what}. Not met: ${unmet.join("; ")}.`,
  };
}
