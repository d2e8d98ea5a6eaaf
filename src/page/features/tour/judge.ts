import type { NewEvent } from "../../../log";
import type { TourStep } from "./steps";

export type TourOutcome = "passed" | "wrong" | "ignore";

/** What an event means for a step, with the reason a trainee reads. */
export interface Judgement {
  outcome: TourOutcome;
  reason: string;
}

/** Events that are an outcome of something the trainee ran; everything else is noise. */
type OutcomeEvent = Extract<NewEvent, { kind: "proxy.decision" | "tls.verdict" | "wire.verdict" | "kernel.result" | "wire.dns" }>;

function outcomeEvent(event: NewEvent): OutcomeEvent | null {
  switch (event.kind) {
    case "proxy.decision":
      // The page's own endpoints (/v0/log, /v0/policy) are the trainee looking, not trying.
      return event.mode === "own" ? null : event;
    case "tls.verdict":
    case "wire.verdict":
    case "kernel.result":
    case "wire.dns":
      return event;
    default:
      return null;
  }
}

/** One line saying what happened, from the event's own fields (rendered as text only). */
export function describeOutcome(event: OutcomeEvent): string {
  switch (event.kind) {
    case "proxy.decision":
      return `the proxy ${event.allowed ? "allowed" : "refused"} ${event.method} ${event.target}: ${event.code} (by ${event.by}, HTTP ${event.status}), ${event.reason}`;
    case "tls.verdict":
      return `TLS inside the tunnel to ${event.target} was refused: ${event.code} (by ${event.by}), ${event.reason}`;
    case "wire.verdict":
      return `a packet to ${event.target} was ${event.allowed ? "let through" : "refused"} on the wire: ${event.code} (by ${event.by}), ${event.reason}`;
    case "kernel.result":
      return `${event.program} to ${event.target} got ${event.result}${event.errno === null ? "" : ` (errno ${event.errno})`}`;
    case "wire.dns":
      return `a DNS query for ${event.name} (${event.type}) crossed the wire and was answered ${event.answer}`;
  }
}

function matches(step: TourStep, event: OutcomeEvent): boolean {
  const expect = step.expect;
  switch (expect.kind) {
    case "proxy":
      return event.kind === "proxy.decision" && event.code === expect.code && event.by === expect.by;
    case "kernel":
      return event.kind === "kernel.result" && event.result === expect.result;
    case "dns":
      return event.kind === "wire.dns" && event.rcode === expect.rcode;
  }
}

/** Why a wrong outcome is not the lesson, when there is more to say than what happened. */
function whyNot(step: TourStep, event: OutcomeEvent): string | null {
  const expect = step.expect;
  if (event.kind === "proxy.decision" && event.allowed) return "That host is on the allowlist, so nothing was refused.";
  if (expect.kind === "kernel") {
    if (event.kind === "wire.verdict" && event.code === "no-route")
      return "That SYN left the guest: without llrun no Landlock ruleset applied, so the kernel let connect() through and the page's wire refused it instead (nothing leaves the tab except through the proxy). An agent runs under its policy, where the kernel refuses the connect() with EACCES and no packet leaves at all.";
    if (event.kind === "kernel.result" && event.errno === 0)
      return "The connect() succeeded: that is the one port the agent's policy allows, the proxy's.";
    if (event.kind === "kernel.result")
      return "The kernel did not refuse it: without llrun no Landlock ruleset applied, a SYN left the guest and the page answered with a reset (no-route on the Wire panel). Under the agent's policy the kernel answers EACCES before any packet leaves.";
    if (event.kind === "proxy.decision") return "That went through the proxy; this step is about going around it.";
  }
  if (expect.kind === "dns" && event.kind === "wire.dns")
    return `The query was visible on the wire, but the page answered it ${event.answer}, not ${expect.rcodeName}: has the page's DNS policy changed?`;
  return null;
}

/**
 * Judges one log event against the current step: `passed` on the step's outcome, `wrong` on
 * any other outcome of something the trainee ran (with what happened instead), `ignore` for
 * everything else (frames, TLS sessions, boot progress, the Landlock ruleset line).
 */
export function judge(step: TourStep, event: NewEvent): Judgement {
  const outcome = outcomeEvent(event);
  if (!outcome) return { outcome: "ignore", reason: `${event.kind} is not an outcome` };
  const what = describeOutcome(outcome);
  if (matches(step, outcome))
    return {
      outcome: "passed",
      reason: `What happened: ${what}. ${step.explanation} Verdict table, row ${step.seedRow}: ${step.seedText}.`,
    };
  const why = whyNot(step, outcome);
  return { outcome: "wrong", reason: `What happened instead: ${what}. ${why ? `${why} ` : ""}${step.retry}` };
}
