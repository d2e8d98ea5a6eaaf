import type { EventLog } from "../log";
import type { GuestTerminal } from "./chrome/terminal";
import type { PageLink } from "./link";
import { notKept, type StorageProbe, storageNotice } from "./storage-probe";

/** The message an embedded page posts when it keeps nothing of some kind (docs/lessons.md, "Embedding"). */
export interface StorageDeniedMessage {
  source: "linux-in-a-tab";
  type: "page.storage-denied";
  /** What will not be kept after the reader leaves, in words (storage-probe.ts `notKept`). */
  notKept: string[];
}

/** Where an embed's messages go: the link's `embedder` origin, else any parent; null when `embedder=` is no origin. */
export function embedderTarget(embedder: string | null): string | null {
  if (embedder === null || embedder === "") return "*";
  try {
    const url = new URL(embedder);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * Says once what the page will not keep (the probe's verdict): on the log, at the top of the
 * terminal, and, framed with `?embed=1`, to the parent window. Nothing when all is kept.
 */
export function announceStorage(o: {
  probe: Pick<StorageProbe, "localStorage" | "indexedDB">;
  log: EventLog;
  terminal: Pick<GuestTerminal, "write">;
  link: Pick<PageLink, "embed" | "embedder">;
  scope: { parent: unknown; self: unknown };
}): void {
  const notice = storageNotice(o.probe);
  if (notice === null) return;
  o.log.append({ kind: "note", level: "warning", source: "page", message: notice });
  o.terminal.write(`\x1b[33mtab: ${notice}\x1b[0m\r\n`);
  const target = embedderTarget(o.link.embedder);
  if (o.link.embed !== "1" || o.scope.parent === o.scope.self || o.scope.parent === null || target === null) return;
  const message: StorageDeniedMessage = { source: "linux-in-a-tab", type: "page.storage-denied", notKept: notKept(o.probe) };
  try {
    (o.scope.parent as { postMessage(m: unknown, origin: string): void }).postMessage(message, target);
  } catch {
    // A parent that went away hears nothing.
  }
}
