import { createEmitter, type EmitterOptions } from "../platform";
import type { PartKind, ProposalPart } from "./proposal";

/**
 * The reader's consent to what a link proposes (docs/decisions/0028): material from a link, a
 * fragment or a framing parent may be shown at once, but changes nothing, runs nothing and
 * contacts nothing until the reader accepts what the card shows.
 *
 * The host knows from the link which parts to expect (a lesson, a share replay, a relay); each
 * part is offered by whoever reads it (the lesson once it is loaded and parsed) or withdrawn
 * (a lesson that was refused). Once every expected part is in, the card asks; one answer
 * covers every part, so a link cannot split what it asks into pieces that look harmless alone.
 */
export type ConsentPhase =
  /** Some expected parts are still being read. */
  | "gathering"
  /** Every part is in; the card waits for the reader. */
  | "asking"
  | "accepted"
  | "rejected"
  /** The link proposed nothing that needs consent (or every part was withdrawn). */
  | "none";

export interface ConsentState {
  phase: ConsentPhase;
  parts: ProposalPart[];
}

export interface ConsentGate {
  /** Whether the link carries a part of this kind (so its reader must offer or withdraw it). */
  expects(kind: PartKind): boolean;
  /** Offers a part; resolves true once the reader accepts the card, false on reject. */
  offer(part: ProposalPart): Promise<boolean>;
  /** This part will not be offered (refused, invalid): the card does not wait for it. */
  withdraw(kind: PartKind): void;
  /** The reader's answer for one kind: true once accepted; false when rejected, withdrawn, or never expected. */
  granted(kind: PartKind): Promise<boolean>;
  accept(): void;
  reject(): void;
  state(): ConsentState;
  subscribe(listener: (state: ConsentState) => void): () => void;
}

/** A view that throws never keeps the others (or the gate) from hearing a change; its error goes to `onListenerError`. */
export function createConsentGate(expected: readonly PartKind[], options: EmitterOptions = {}): ConsentGate {
  const waiting = new Set<PartKind>(expected);
  const parts = new Map<PartKind, ProposalPart>();
  const listeners = createEmitter<ConsentState>(options);
  let answer: boolean | null = null;
  let settle: (accepted: boolean) => void = () => undefined;
  const decided = new Promise<boolean>((resolve) => {
    settle = resolve;
  });

  const phase = (): ConsentPhase => {
    if (answer !== null) return answer ? "accepted" : "rejected";
    if (waiting.size > 0) return "gathering";
    return parts.size > 0 ? "asking" : "none";
  };
  const state = (): ConsentState => ({ phase: phase(), parts: [...parts.values()] });
  const changed = () => {
    const now = state();
    if (now.phase === "none") settle(false);
    listeners.emit(now);
  };
  const answerWith = (accepted: boolean) => {
    if (answer !== null || phase() !== "asking") return;
    answer = accepted;
    settle(accepted);
    changed();
  };

  return {
    expects: (kind) => expected.includes(kind),
    offer(part) {
      if (!waiting.has(part.kind) || answer !== null) return Promise.resolve(false);
      waiting.delete(part.kind);
      parts.set(part.kind, part);
      changed();
      return decided;
    },
    withdraw(kind) {
      if (!waiting.delete(kind)) return;
      changed();
    },
    granted: (kind) => (expected.includes(kind) ? decided.then((accepted) => accepted && parts.has(kind)) : Promise.resolve(false)),
    accept: () => answerWith(true),
    reject: () => answerWith(false),
    state,
    subscribe: (listener) => listeners.subscribe(listener),
  };
}
