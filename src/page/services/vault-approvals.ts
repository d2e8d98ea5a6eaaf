import type { WriteApprovalRequest, WriteApprover } from "../../kms";
import { createEmitter } from "../../platform";

/**
 * The page's side of "write grants need the operator": the KMS's approver puts each question
 * here, the approval card (./vault-card) shows what is pending and answers it. No DOM here, so
 * the queue is tested on its own.
 */

export interface PendingApproval {
  /** Local to this page: which card button answers which question. */
  id: number;
  vaultId: string;
  op: "write";
  /** The guest's word for what it is running: untrusted, shown as text only. */
  command: string;
  /** When the KMS refuses it if unanswered (ms since the epoch). */
  deadline: number;
}

export interface ApprovalQueue {
  /** For the KMS (`approveWrite`): resolves with the operator's answer; false when withdrawn. */
  ask: WriteApprover;
  pending(): readonly PendingApproval[];
  /** Answers one question; false when it is no longer pending. */
  decide(id: number, approved: boolean): boolean;
  /** Called whenever the pending list changes; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
}

export function createApprovalQueue(): ApprovalQueue {
  const waiting = new Map<number, { approval: PendingApproval; answer: (approved: boolean) => void }>();
  const listeners = createEmitter();
  let next = 1;
  const changed = () => {
    listeners.emit();
  };
  const settle = (id: number, approved: boolean): boolean => {
    const entry = waiting.get(id);
    if (!entry) return false;
    waiting.delete(id);
    entry.answer(approved);
    changed();
    return true;
  };

  return {
    ask(request: WriteApprovalRequest) {
      if (request.signal.aborted) return Promise.resolve(false);
      const approval: PendingApproval = {
        id: next++,
        vaultId: request.vaultId,
        op: request.op,
        command: request.command,
        deadline: request.deadline,
      };
      return new Promise<boolean>((resolve) => {
        waiting.set(approval.id, { approval, answer: resolve });
        // The KMS stopped waiting (its timeout): the question disappears from the card.
        request.signal.addEventListener("abort", () => settle(approval.id, false), { once: true });
        changed();
      });
    },
    pending: () => [...waiting.values()].map((entry) => entry.approval),
    decide: settle,
    subscribe: (listener) => listeners.subscribe(listener),
  };
}
