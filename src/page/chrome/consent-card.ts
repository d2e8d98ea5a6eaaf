import type { ConsentGate, ConsentState, LessonPart, PolicyProposal, ProposalPart, RelayPart, SharePart } from "../../trust";
import { h, replaceChildren } from "./dom";

/**
 * The card a link's material opens as (docs/decisions/0028, "Consent before effect"): every
 * part the link carries — a lesson with its steps, setup commands and policy; a share link's
 * rows, agent and policy; a relay or policy host — shown in full, with one Accept and one
 * Reject. Until the reader answers, nothing of it is typed, applied or contacted. Everything
 * shown comes from the link and is rendered as text.
 */
export function mountConsentCard(gate: ConsentGate, parent: HTMLElement): { element: HTMLElement } {
  const element = h("section", {
    class: "consent-card",
    role: "dialog",
    attrs: { "aria-labelledby": "consent-title", "data-testid": "consent-card" },
  });
  element.hidden = true;
  parent.appendChild(element);

  // Answered, the card goes away (it covered the page's controls); the log keeps the answer.
  const render = (state: ConsentState) => {
    element.hidden = state.phase !== "asking";
    element.dataset.phase = state.phase;
    if (state.phase !== "asking") return;
    replaceChildren(element, ...asking(state.parts, gate));
    element.querySelector<HTMLButtonElement>("button[data-decision=reject]")?.focus({ preventScroll: true });
  };
  gate.subscribe(render);
  render(gate.state());
  return { element };
}

function asking(parts: readonly ProposalPart[], gate: ConsentGate): HTMLElement[] {
  const button = (label: string, decision: "accept" | "reject", act: () => void) =>
    h("button", { class: `consent-${decision}`, attrs: { type: "button", "data-decision": decision }, on: { click: act } }, label);
  return [
    h("h2", { id: "consent-title" }, "⚠ This link wants to run something in your playground"),
    h(
      "p",
      { class: "consent-lead" },
      "It came from a link (or the page that frames this one), not from this playground. Nothing below has been typed, applied or contacted. Accept runs all of it; Reject leaves everything as it was.",
    ),
    ...parts.map(partView),
    h(
      "p",
      { class: "consent-guarantees" },
      "Whatever you answer, a link can never reach your own machine or network (loopback, private or link-local addresses and names like localhost), open a vault other than the demo vault, or send what you type or see to the page that frames this one.",
    ),
    h("div", { class: "consent-buttons" }, button("Accept and run", "accept", gate.accept), button("Reject", "reject", gate.reject)),
  ];
}

function partView(part: ProposalPart): HTMLElement {
  if (part.kind === "lesson") return lessonView(part);
  if (part.kind === "share") return shareView(part);
  return relayView(part);
}

function lessonView(part: LessonPart): HTMLElement {
  return h(
    "div",
    { class: "consent-part", attrs: { "data-part": "lesson" } },
    h("h3", {}, `Lesson “${part.title}” from ${part.from}`),
    h("ol", { class: "consent-steps" }, ...part.steps.map((title) => h("li", {}, title))),
    part.setup.length > 0
      ? h(
          "div",
          {},
          h("div", {}, "Before step 1 it types these commands into your guest:"),
          h("pre", { class: "consent-setup", attrs: { "data-testid": "consent-setup" } }, part.setup.join("\n")),
        )
      : h("div", {}, "It types no setup commands."),
    part.checks && part.checks.length > 0
      ? h(
          "div",
          {},
          h("div", {}, "After your commands it runs these in the guest, out of sight, to check what you left:"),
          h("pre", { class: "consent-setup", attrs: { "data-testid": "consent-checks" } }, part.checks.join("\n")),
        )
      : null,
    policyView(part.policy, "its policy"),
  );
}

function shareView(part: SharePart): HTMLElement {
  return h(
    "div",
    { class: "consent-part", attrs: { "data-part": "share" } },
    h("h3", {}, "A shared replay"),
    part.scenarios.length > 0
      ? h("div", {}, `It types these rows of the verdict table into your guest, in order: ${part.scenarios.join(", ")}.`)
      : null,
    part.agent ? h("div", {}, `It runs the agent of the harness ${part.agent} in your guest.`) : null,
    part.policyRef
      ? h(
          "div",
          { attrs: { "data-testid": "consent-policy-ref" } },
          `Its policy is published at ${part.policyRef.host} (${part.policyRef.url}): fetched only if you accept, then applied.`,
        )
      : null,
    policyView(part.policy, "its policy"),
  );
}

function relayView(part: RelayPart): HTMLElement {
  return h(
    "div",
    { class: "consent-part", attrs: { "data-part": "relay" } },
    h("h3", {}, `The Wisp relay at ${part.host}`),
    h(
      "div",
      {},
      `Your page would reach the hosts the policy allows through ${part.shown}: that server then sees every host name your guest connects to (not what is sent inside TLS).`,
    ),
  );
}

function policyView(policy: PolicyProposal | null, what: string): HTMLElement | null {
  if (!policy) return null;
  return h(
    "div",
    { class: "consent-policy", attrs: { "data-testid": "consent-policy" } },
    h("div", {}, policy.changes.length === 0 ? `${capital(what)} is the one you have now.` : `${capital(what)}, against yours:`),
    policy.changes.length > 0
      ? h("ul", { class: "consent-diff" }, ...policy.changes.map((c) => h("li", { attrs: { "data-sign": c.sign } }, `${c.sign} ${c.text}`)))
      : null,
    policy.refused.length > 0
      ? h(
          "div",
          { attrs: { "data-testid": "consent-refused" } },
          h("div", {}, "Never applied, whatever you answer (the guarantees):"),
          h(
            "ul",
            { class: "consent-diff" },
            ...policy.refused.map((r) => h("li", { attrs: { "data-sign": "×" } }, `× ${r.rule}: ${r.reason}`)),
          ),
        )
      : null,
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
