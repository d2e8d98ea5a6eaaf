import { describe, expect, it } from "vitest";
import { createApprovalQueue } from "./vault-approvals";

// The KMS gives keys for one command only (docs/decisions/0006-vault-keys-stay-with-the-kms.md) and the vault's known debt:
// a write grant waits for the operator, who answers on the page's approval card.

const request = (signal: AbortSignal, command = "sgit push demo-notes (pid 9)") => ({
  vaultId: "demo-notes",
  op: "write" as const,
  command,
  deadline: 123,
  signal,
});

describe("the page's approval queue (what the approval card shows and answers)", () => {
  it.each<[string, boolean]>([
    ["Approve answers the KMS true", true],
    ["Deny answers the KMS false", false],
  ])("%s and removes the question", async (_name, approved) => {
    const queue = createApprovalQueue();
    const answer = queue.ask(request(new AbortController().signal));
    const [pending] = queue.pending();
    expect(pending).toMatchObject({ vaultId: "demo-notes", op: "write", command: "sgit push demo-notes (pid 9)", deadline: 123 });
    expect(queue.decide(pending?.id ?? -1, approved)).toBe(true);
    expect(await answer).toBe(approved);
    expect(queue.pending()).toEqual([]);
    expect(queue.decide(pending?.id ?? -1, true)).toBe(false);
  });

  it("withdraws a question when the KMS stops waiting (its timeout aborts the request)", async () => {
    const queue = createApprovalQueue();
    const controller = new AbortController();
    const answer = queue.ask(request(controller.signal));
    expect(queue.pending()).toHaveLength(1);
    controller.abort();
    expect(await answer).toBe(false);
    expect(queue.pending()).toEqual([]);
  });

  it("tells subscribers when the pending list changes, and answers each question on its own", async () => {
    const queue = createApprovalQueue();
    const seen: number[] = [];
    const stop = queue.subscribe(() => seen.push(queue.pending().length));
    const first = queue.ask(request(new AbortController().signal, "one"));
    const second = queue.ask(request(new AbortController().signal, "two"));
    const [a, b] = queue.pending();
    queue.decide(b?.id ?? -1, true);
    queue.decide(a?.id ?? -1, false);
    expect([await first, await second]).toEqual([false, true]);
    expect(seen).toEqual([1, 2, 1, 0]);
    stop();
    void queue.ask(request(new AbortController().signal));
    expect(seen).toHaveLength(4);
  });
});
