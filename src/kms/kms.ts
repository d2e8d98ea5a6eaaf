import { toHex } from "../bytes";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { type Clock, systemClock, systemTimers, type Timers } from "../platform";
import type { Policy } from "../policy";
import { askOperator, DEFAULT_APPROVAL_TIMEOUT_MS, type WriteApprover } from "./approval";
import { generateVaultKeys, type VaultKeys, type WriteKeys } from "./crypto";
import { KeyRecord, type KeyStore } from "./key-store";
import type { VaultHead, VaultOp } from "./schema";

/**
 * The in-page KMS (docs/decisions/0006-vault-keys-stay-with-the-kms.md). It holds each vault's keys and gives them out
 * only for one command's grant: a grant names one vault and one op and expires. A read
 * grant unlocks the content key; only a write grant also unlocks the signing key, so a push
 * made under a read grant cannot be signed. Vault ids must be on the policy's `vaults`.
 * A write grant the guest asks for is issued only when the operator approves it (./approval).
 * Beside each vault's keys the KMS remembers the newest head it signed or verified, against
 * which an older manifest in the cache is a rollback (./head).
 */

/** One command's permission to use one vault; held in page memory only. */
export interface Grant {
  /** The bearer token the command presents (`X-Vault-Grant-Token`); logged only as `grantLabel`. */
  id: string;
  vaultId: string;
  op: VaultOp;
  command: string;
  issuedAt: number;
  expiresAt: number;
}

export interface GrantOutcome {
  verdict: Verdict;
  grant?: Grant;
}

/** What `keysFor` returns: the read op gets the read keys only, whatever the grant allows. */
export type KeysFor<O extends VaultOp> = O extends "write" ? WriteKeys : VaultKeys;

export interface KeysOutcome<O extends VaultOp> {
  verdict: Verdict;
  /** The grant the token named, when there was one (for the caller's event). */
  grant?: Grant;
  keys?: KeysFor<O>;
}

/**
 * Who asks for a grant: the guest (through the proxy's endpoint; a write grant then needs the
 * operator's approval) or the host itself (the page seeding its demo vault; no approval).
 */
export type Requester = "guest" | "host";

export interface GrantRequestOf {
  vaultId: string;
  op: VaultOp;
  command: string;
  /** Default "guest". */
  requester?: Requester;
}

export interface Kms {
  /**
   * Issues a grant for a vault id on the policy (creating the vault's keys on first use);
   * a write grant for the guest first waits for the operator. Logs one `kms.event` (op grant)
   * with the decision.
   */
  grant(request: GrantRequestOf, policy: Policy): Promise<GrantOutcome>;
  /**
   * The keys one operation needs, if the grant token allows it. Does not log: the pull or
   * push that asked carries the verdict in its own event (one event per decision).
   */
  keysFor<O extends VaultOp>(token: string | null, vaultId: string, op: O, policy: Policy): Promise<KeysOutcome<O>>;
  /** Whether this KMS holds keys for the vault. */
  hasVault(vaultId: string): Promise<boolean>;
  /** The newest head this KMS signed or verified for the vault (null: none yet, or no keys). */
  knownHead(vaultId: string): Promise<VaultHead | null>;
  /** Records a head this KMS signed or verified, in its key store; never moves backwards. */
  rememberHead(vaultId: string, head: VaultHead): Promise<void>;
}

export interface KmsOptions {
  keys: KeyStore;
  log: EventLog;
  clock?: Clock;
  /** How long a grant lives (default 2 minutes: one command on a slow emulated guest). */
  grantTtlMs?: number;
  /** How many live grants are kept at most; the oldest are forgotten first. */
  maxGrants?: number;
  /** Asks the operator about a guest's write grant. Without one, every such grant is refused. */
  approveWrite?: WriteApprover;
  /** How long a write grant waits for the operator (default 60 s), then it is refused. */
  approvalTimeoutMs?: number;
  /** Timers for that wait (default the host's). */
  timers?: Timers;
  /** How many write grants may wait for the operator at once; more are refused at once (default 4). */
  maxPendingApprovals?: number;
}

/** What the log shows of a grant token: enough to correlate, too little to replay. */
export const grantLabel = (id: string): string => `${id.slice(0, 10)}…`;

export function createKms(options: KmsOptions): Kms {
  const { log } = options;
  const clock = options.clock ?? systemClock;
  const ttl = options.grantTtlMs ?? 120_000;
  const maxGrants = options.maxGrants ?? 1000;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const maxPending = options.maxPendingApprovals ?? 4;
  let pendingApprovals = 0;
  const grants = new Map<string, Grant>();
  // One key generation per vault even when two grants race for a new vault.
  const creating = new Map<string, Promise<KeyRecord | Verdict>>();

  const allowed = (policy: Policy, vaultId: string): Verdict | null =>
    policy.vaults.includes(vaultId)
      ? null
      : refuse("vault-not-allowed", `vault ${vaultId} is not on the policy's vaults (${policy.vaults.join(", ") || "none"})`, "kms");

  async function loadRecord(vaultId: string): Promise<KeyRecord | Verdict | null> {
    const raw = await options.keys.get(vaultId);
    if (raw === undefined || raw === null) return null;
    const parsed = KeyRecord.safeParse(raw);
    if (!parsed.success || parsed.data.vaultId !== vaultId)
      return refuse("vault-tampered", `the KMS's key record for vault ${vaultId} in ${options.keys.label} is unreadable`, "kms");
    return parsed.data;
  }

  async function ensureKeys(vaultId: string, command: string): Promise<KeyRecord | Verdict> {
    const found = await loadRecord(vaultId);
    if (found) return found;
    const pending = creating.get(vaultId);
    if (pending) return pending;
    const created = (async () => {
      const again = await loadRecord(vaultId);
      if (again) return again;
      const record: KeyRecord = { vaultId, createdAt: clock(), keys: await generateVaultKeys() };
      await options.keys.put(vaultId, record);
      log.append({
        kind: "kms.event",
        op: "create",
        vaultId,
        command,
        ...allow(
          `generated vault ${vaultId}'s keys in the page (AES-256-GCM content key, ECDSA P-256 signing key; non-extractable)`,
          "kms",
        ),
      });
      return record;
    })();
    creating.set(vaultId, created);
    try {
      return await created;
    } finally {
      creating.delete(vaultId);
    }
  }

  /** Why the operator's answer allows the grant (a string), or the refusal. */
  async function operatorApproval(vaultId: string, command: string): Promise<string | Verdict> {
    const notGranted = (why: string) =>
      refuse("vault-op-not-granted", `write on vault ${vaultId} was not granted: ${why}; nothing was unlocked`, "kms");
    if (!options.approveWrite) return notGranted("no operator is attached to this KMS to approve write grants");
    if (pendingApprovals >= maxPending)
      return notGranted(`${pendingApprovals} write grants are already waiting for the operator (at most ${maxPending})`);
    pendingApprovals += 1;
    try {
      const answer = await askOperator(
        options.approveWrite,
        { vaultId, op: "write", command, deadline: clock() + approvalTimeoutMs },
        options.timers ?? systemTimers,
        approvalTimeoutMs,
      );
      switch (answer.kind) {
        case "approved":
          return "the operator approved";
        case "denied":
          return notGranted("the operator denied it");
        case "timeout":
          return notGranted(`the operator did not approve in time (${Math.round(approvalTimeoutMs / 1000)} s)`);
        case "failed":
          return notGranted(`asking the operator failed (${answer.message})`);
      }
    } finally {
      pendingApprovals -= 1;
    }
  }

  function forgetOld(now: number): void {
    for (const [id, grant] of grants) if (grant.expiresAt <= now) grants.delete(id);
    while (grants.size >= maxGrants) {
      const oldest = grants.keys().next();
      if (oldest.done) break;
      grants.delete(oldest.value);
    }
  }

  return {
    async grant({ vaultId, op, command, requester = "guest" }, policy) {
      const event = { kind: "kms.event", op: "grant", vaultId, command, access: op } as const;
      const notAllowed = allowed(policy, vaultId);
      if (notAllowed) {
        log.append({ ...event, ...notAllowed });
        return { verdict: notAllowed };
      }
      const approval = op === "write" ? (requester === "host" ? "asked by the page itself" : await operatorApproval(vaultId, command)) : "";
      if (typeof approval !== "string") {
        log.append({ ...event, ...approval });
        return { verdict: approval };
      }
      const record = await ensureKeys(vaultId, command);
      if (!("keys" in record)) {
        log.append({ ...event, ...record });
        return { verdict: record };
      }
      const now = clock();
      forgetOld(now);
      const grant: Grant = {
        id: `g-${toHex(crypto.getRandomValues(new Uint8Array(16)))}`,
        vaultId,
        op,
        command,
        issuedAt: now,
        expiresAt: now + ttl,
      };
      grants.set(grant.id, grant);
      const unlocks = op === "write" ? "the content key and the signing key" : "the content key only (no signing key)";
      const verdict = allow(
        `${approval ? `${approval}: ` : ""}granted ${op} on vault ${vaultId} for ${Math.round(ttl / 1000)} s: unlocks ${unlocks}`,
        "kms",
      );
      log.append({ ...event, grant: grantLabel(grant.id), expiresAt: grant.expiresAt, ...verdict });
      return { verdict, grant };
    },

    async keysFor(token, vaultId, op, policy) {
      const notAllowed = allowed(policy, vaultId);
      if (notAllowed) return { verdict: notAllowed };
      if (!token)
        return {
          verdict: refuse(
            "vault-op-not-granted",
            `the request carries no X-Vault-Grant-Token: ask POST /v0/vault/grant for a ${op} grant first`,
            "kms",
          ),
        };
      const grant = grants.get(token);
      if (!grant)
        return { verdict: refuse("vault-op-not-granted", "the grant token is unknown to this KMS (never issued, or forgotten)", "kms") };
      if (clock() >= grant.expiresAt) {
        grants.delete(token);
        return { grant, verdict: refuse("grant-expired", `grant ${grantLabel(grant.id)} for vault ${grant.vaultId} has expired`, "kms") };
      }
      if (grant.vaultId !== vaultId)
        return {
          grant,
          verdict: refuse("vault-op-not-granted", `grant ${grantLabel(grant.id)} is for vault ${grant.vaultId}, not ${vaultId}`, "kms"),
        };
      if (op === "write" && grant.op !== "write")
        return {
          grant,
          verdict: refuse(
            "vault-op-not-granted",
            `the command was granted read on vault ${vaultId}: the KMS returned only the read key; the push cannot be signed`,
            "kms",
          ),
        };
      const record = await loadRecord(vaultId);
      if (!record) return { grant, verdict: refuse("vault-tampered", `the KMS no longer holds keys for vault ${vaultId}`, "kms") };
      if (!("keys" in record)) return { grant, verdict: record };
      const { content, verify, sign } = record.keys;
      const keys = (op === "write" ? { content, verify, sign } : { content, verify }) as KeysFor<typeof op>;
      return { grant, keys, verdict: allow(`grant ${grantLabel(grant.id)} unlocks ${op} on vault ${vaultId}`, "kms") };
    },

    async hasVault(vaultId) {
      const record = await loadRecord(vaultId);
      return record !== null && "keys" in record;
    },

    async knownHead(vaultId) {
      const record = await loadRecord(vaultId);
      return record && "keys" in record ? (record.head ?? null) : null;
    },

    async rememberHead(vaultId, head) {
      const record = await loadRecord(vaultId);
      if (!record || !("keys" in record)) return;
      if (record.head && record.head.generation >= head.generation) return;
      await options.keys.put(vaultId, { ...record, head });
    },
  };
}
