import { z } from "zod";
import type { EventLog } from "../log";
import { createEmitter, createSerialQueue, messageOf } from "../platform";
import { covers, parseAllowlistEntry } from "./allowlist";
import { checkOrgAllowlist, OrgAllowlistEntries, OrgAllowlistEntry, orgAllowlistHash, parseOrgAllowlistText } from "./org-allowlist";

/** Where the list is kept between visits (the page: localStorage). Read back as untrusted. */
export interface OrgAllowlistStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const ORG_ALLOWLIST_KEY = "linux-in-a-tab:org-allowlist";

const Stored = z.object({ version: z.literal(1), entries: OrgAllowlistEntries });

/** Entries someone outside (a share link) asks to add; applied only once the operator accepts. */
export interface AllowlistProposal {
  /** Only the entries not already allowed, in the order proposed. */
  entries: string[];
  source: string;
  /** Proposed entries dropped as invalid, each with its reason. */
  problems: string[];
}

export type ProposalDecision = "accepted" | "rejected" | "nothing-new";

export type AllowlistUpdate = { ok: true; hash: string; changed: boolean } | { ok: false; errors: string[] };

export interface OrgAllowlist {
  /** Resolves once the default and the saved list are read; every other call works before, on the default-less empty list. */
  readonly ready: Promise<void>;
  entries(): readonly string[];
  /** The default (the bundled sample's), for "Reset" and for what a share link carries. */
  defaults(): readonly string[];
  hash(): string;
  /** Why the saved list was not used, or could not be saved; null when all is well. */
  notice(): string | null;
  /** Checks and applies a new list; one `resolver.allowlist` event when it changes what is allowed. */
  replace(entries: readonly string[], source: string): Promise<AllowlistUpdate>;
  /** The editor's text (one prefix per line); errors name the line. */
  replaceText(text: string, source: string): Promise<AllowlistUpdate>;
  /** Back to the default; the saved list is forgotten. */
  reset(source: string): Promise<AllowlistUpdate>;
  /** The proposal waiting for the operator, if any. */
  proposal(): AllowlistProposal | null;
  /**
   * Offers entries to the operator. Never changes the list by itself: the returned promise
   * settles when `decide` is called (or at once with `nothing-new` when every valid entry is
   * already allowed). One proposal at a time; a second replaces nothing and waits its turn.
   */
  propose(entries: readonly string[], source: string): Promise<ProposalDecision>;
  decide(accept: boolean): Promise<ProposalDecision>;
  /** Resolves once no proposal is waiting (what a link's own resolve waits for). */
  settled(): Promise<void>;
  /** Called after every change of entries, notice or proposal. */
  subscribe(listener: () => void): () => void;
}

export interface OrgAllowlistOptions {
  log: EventLog;
  storage: OrgAllowlistStorage | null;
  /** The default list (the bundled sample's config.yaml); a failure leaves the default empty with a notice. */
  loadDefault(): Promise<readonly string[]>;
  key?: string;
}

/**
 * The operator's org allowlist: validated (org-allowlist.ts), persisted, every change one
 * logged event with the old and new hash; a share link may only propose entries, which the
 * operator accepts or rejects — the list never widens without that explicit step.
 */
export function createOrgAllowlist(options: OrgAllowlistOptions): OrgAllowlist {
  const { log, storage } = options;
  const key = options.key ?? ORG_ALLOWLIST_KEY;
  // A view's failure never stops the others.
  const listeners = createEmitter();
  let defaults: string[] = [];
  let entries: string[] = [];
  let hash = "";
  let notice: string | null = null;
  let pending: { proposal: AllowlistProposal; decide(decision: ProposalDecision): void } | null = null;
  const queue = createSerialQueue();
  let settledWaiters: (() => void)[] = [];

  const changed = () => listeners.emit();

  const ready = (async () => {
    try {
      const loaded = checkOrgAllowlist(await options.loadDefault());
      if (loaded.ok) defaults = loaded.entries;
      else notice = `the default org allowlist is not valid (${loaded.errors.join("; ")}); it starts empty`;
    } catch (error) {
      notice = `the default org allowlist could not be read (${messageOf(error)}); it starts empty`;
    }
    entries = [...defaults];
    let saved: string | null = null;
    try {
      saved = storage?.getItem(key) ?? null;
    } catch (error) {
      notice = `the saved org allowlist could not be read (${messageOf(error)}); the default is used`;
    }
    if (saved !== null) {
      let json: unknown = null;
      let bad: string | null = null;
      try {
        json = JSON.parse(saved);
      } catch {
        bad = "not JSON";
      }
      const parsed = bad === null ? Stored.safeParse(json) : null;
      if (parsed?.success) entries = parsed.data.entries;
      else {
        bad ??= parsed?.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") ?? "unreadable";
        notice = `the saved org allowlist was not valid (${bad}); the default is used until you save a new one`;
        log.append({ kind: "note", level: "warning", source: "org allowlist", message: notice });
      }
    }
    hash = await orgAllowlistHash(entries);
    changed();
  })();

  const persist = (next: string[] | null) => {
    try {
      if (next === null) storage?.removeItem(key);
      else storage?.setItem(key, JSON.stringify({ version: 1, entries: next }));
      notice = null;
    } catch (error) {
      notice = `the org allowlist applies to this page only: it could not be saved (${messageOf(error)})`;
    }
  };

  /** Applies a checked list; serialized so each event's old hash is the previous event's new one. */
  const apply = (next: string[], source: string, save: string[] | null): Promise<AllowlistUpdate> => {
    return queue.run(async (): Promise<AllowlistUpdate> => {
      await ready;
      const newHash = await orgAllowlistHash(next);
      persist(save);
      const oldHash = hash;
      const before = entries;
      entries = next;
      hash = newHash;
      if (newHash !== oldHash)
        log.append({
          kind: "resolver.allowlist",
          oldHash,
          newHash,
          source,
          added: next.filter((e) => !before.includes(e)),
          removed: before.filter((e) => !next.includes(e)),
        });
      changed();
      return { ok: true, hash: newHash, changed: newHash !== oldHash };
    });
  };

  const isAllowed = (entry: string) => {
    const parsed = parseAllowlistEntry(entry);
    if (!parsed.ok) return false;
    return entries.some((e) => {
      const existing = parseAllowlistEntry(e);
      return existing.ok && covers(existing.entry, parsed.entry.key);
    });
  };

  const waiting: { entries: readonly string[]; source: string; resolve(d: ProposalDecision): void }[] = [];

  const openNext = () => {
    while (pending === null && waiting.length > 0) {
      const next = waiting.shift()!;
      const problems: string[] = [];
      const fresh: string[] = [];
      for (const raw of next.entries) {
        const checked = OrgAllowlistEntry.safeParse(raw);
        if (!checked.success) problems.push(checked.error.issues[0]?.message ?? `${raw} is not valid`);
        else if (!isAllowed(raw) && !fresh.includes(raw)) fresh.push(raw);
      }
      if (problems.length > 0)
        log.append({
          kind: "note",
          level: "warning",
          source: next.source,
          message: `proposed org allowlist entries dropped: ${problems.join("; ")}`,
        });
      if (fresh.length === 0) {
        next.resolve("nothing-new");
        continue;
      }
      pending = { proposal: { entries: fresh, source: next.source, problems }, decide: next.resolve };
    }
    if (pending === null) {
      const waiters = settledWaiters;
      settledWaiters = [];
      for (const w of waiters) w();
    }
    changed();
  };

  const allowlist: OrgAllowlist = {
    ready,
    entries: () => entries,
    defaults: () => defaults,
    hash: () => hash,
    notice: () => notice,
    replace(next, source) {
      const checked = checkOrgAllowlist(next);
      if (!checked.ok) return Promise.resolve(checked);
      return apply(checked.entries, source, checked.entries);
    },
    replaceText(text, source) {
      const parsed = parseOrgAllowlistText(text);
      if (!parsed.ok) return Promise.resolve(parsed);
      return apply(parsed.entries, source, parsed.entries);
    },
    async reset(source) {
      await ready;
      return apply([...defaults], source, null);
    },
    proposal: () => pending?.proposal ?? null,
    propose(proposed, source) {
      return new Promise<ProposalDecision>((resolve) => {
        // Judged against the list as it is once read (a saved list may already allow them).
        waiting.push({ entries: [...proposed], source, resolve });
        void ready.then(openNext);
      });
    },
    async decide(accept) {
      await ready;
      const current = pending;
      if (current === null) return "nothing-new";
      if (accept) {
        const next = [...entries, ...current.proposal.entries.filter((e) => !entries.includes(e))];
        const checked = checkOrgAllowlist(next);
        if (checked.ok) await apply(checked.entries, `${current.proposal.source} (accepted)`, checked.entries);
        else {
          log.append({
            kind: "note",
            level: "warning",
            source: current.proposal.source,
            message: `not accepted: ${checked.errors.join("; ")}`,
          });
          accept = false;
        }
      } else {
        log.append({
          kind: "note",
          level: "info",
          source: current.proposal.source,
          message: `proposed org allowlist entries rejected; the allowlist is unchanged: ${current.proposal.entries.join(", ")}`,
        });
      }
      const decision: ProposalDecision = accept ? "accepted" : "rejected";
      pending = null;
      current.decide(decision);
      openNext();
      return decision;
    },
    settled() {
      return ready.then(
        () =>
          new Promise<void>((resolve) => {
            if (pending === null && waiting.length === 0) resolve();
            else settledWaiters.push(resolve);
          }),
      );
    },
    subscribe(listener) {
      return listeners.subscribe(listener);
    },
  };
  return allowlist;
}
