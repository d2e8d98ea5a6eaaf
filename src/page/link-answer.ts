import type { EventLog } from "../log";
import { type ConsentGate, createConsentGate, withoutToken } from "../trust";
import { mountConsentCard } from "./chrome/consent-card";
import type { PageLink } from "./link";
import { linkConsentParts } from "./link-consent";
import type { PageRelay } from "./relay";

/**
 * What the link proposes waits for the reader's one answer on the card (docs/decisions/0028):
 * the card, the answer on the log, and the link's relay offered on it (the features offer
 * their own parts when they mount).
 */
export function askAboutLink(link: PageLink, log: EventLog, relay: PageRelay): ConsentGate {
  const consent = createConsentGate(linkConsentParts(link));
  mountConsentCard(consent, document.body);
  const logAnswer = consent.subscribe((state) => {
    if (state.phase !== "accepted" && state.phase !== "rejected") return;
    logAnswer();
    const parts = state.parts.map((p) => p.kind).join(", ");
    log.append({
      kind: "note",
      level: state.phase === "accepted" ? "info" : "warning",
      source: "link",
      message:
        state.phase === "accepted"
          ? `you accepted what this page's link proposes (${parts}): it runs as the card showed, minus what the guarantees refuse`
          : `you rejected what this page's link proposes (${parts}): nothing of it was run, applied or contacted`,
    });
  });
  const linkedRelay = relay.proposed();
  if (linkedRelay !== null)
    void consent
      .offer({ kind: "relay", shown: withoutToken(linkedRelay), host: new URL(linkedRelay).host })
      .then((accepted) => (accepted ? relay.acceptProposed() : relay.declineProposed()));
  else consent.withdraw("relay");
  return consent;
}
