export { type ConsentGate, type ConsentPhase, type ConsentState, createConsentGate } from "./consent-gate";
export {
  describePolicyChange,
  type LessonPart,
  type PartKind,
  type PolicyChangeLine,
  type PolicyProposal,
  type ProposalPart,
  type RelayPart,
  type SharePart,
  withoutToken,
} from "./proposal";
