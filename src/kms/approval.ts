import { messageOf, type Timers } from "../platform";

/**
 * Write grants need the operator. A write grant unlocks the vault's signing key, so a guest
 * process (an agent under llrun reaches the proxy port too) must not get one by asking: the
 * KMS asks the operator through an injected approver (the page shows a card; a CLI or a test
 * supplies its own) and waits, bounded. Read grants stay automatic.
 */

/** What the operator is asked. Everything but `vaultId` and `op` is the guest's word, untrusted. */
export interface WriteApprovalRequest {
  vaultId: string;
  op: "write";
  /** What the guest says the command is (printable ASCII, at most 200 characters). */
  command: string;
  /** When the KMS stops waiting and refuses (ms since the epoch, on the KMS's clock). */
  deadline: number;
  /** Aborted when the KMS stops waiting: the approver should withdraw its question. */
  signal: AbortSignal;
}

/** Resolves true to approve, false to deny. A rejection is a denial. */
export type WriteApprover = (request: WriteApprovalRequest) => Promise<boolean>;

/** How long a write grant waits for the operator by default. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;

export type ApprovalAnswer = { kind: "approved" } | { kind: "denied" } | { kind: "timeout" } | { kind: "failed"; message: string };

/** Asks `approver` and waits at most `timeoutMs`; on timeout the request's signal is aborted. */
export function askOperator(
  approver: WriteApprover,
  request: Omit<WriteApprovalRequest, "signal">,
  timers: Timers,
  timeoutMs: number,
): Promise<ApprovalAnswer> {
  const controller = new AbortController();
  return new Promise<ApprovalAnswer>((resolve) => {
    let settled = false;
    const settle = (answer: ApprovalAnswer) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      resolve(answer);
    };
    const timer = timers.setTimeout(() => {
      settle({ kind: "timeout" });
      controller.abort();
    }, timeoutMs);
    let asked: Promise<boolean>;
    try {
      asked = approver({ ...request, signal: controller.signal });
    } catch (error) {
      asked = Promise.reject(error);
    }
    asked.then(
      (approved) => settle(approved === true ? { kind: "approved" } : { kind: "denied" }),
      (error: unknown) => settle({ kind: "failed", message: messageOf(error) }),
    );
  });
}
