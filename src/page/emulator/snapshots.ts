import { createStore, del, get, set, type UseStore } from "idb-keyval";
import { SNAPSHOT_DATABASE, SNAPSHOT_FLAG } from "./snapshot-names";
import { packState, unpackState } from "./state-codec";

/**
 * Saved guest states in IndexedDB, keyed by the hashes of the image they were taken from and
 * by the machine they ran on: a state only restores on the exact same kernel, initrd and BIOS,
 * and the same memory, devices and cmdline (src/machine's `machineRecord`). A state saved
 * before the machine changed (ACPI turned on, say) would restore into a machine whose devices
 * it does not know; under its old key it is never asked for, and the page boots and saves anew.
 */
let opened: UseStore | null = null;
/** Opened on first use: a browser that refuses IndexedDB (storage blocked) then fails that use, not the import. */
const store = (): UseStore => {
  opened ??= createStore(SNAPSHOT_DATABASE, "states");
  return opened;
};

/**
 * Keeps SNAPSHOT_FLAG in localStorage while this browser holds a state of the page's:
 * index.html's first script reads it at once (IndexedDB answers later) to know a returning
 * visitor, who must not download the shipped state (early-state-download.ts).
 */
function flagSnapshot(saved: boolean): void {
  try {
    if (saved) localStorage.setItem(SNAPSHOT_FLAG, "1");
    else localStorage.removeItem(SNAPSHOT_FLAG);
  } catch {
    // Storage refused: the first script asks IndexedDB instead, as without the flag.
  }
}

export function snapshotKey(hashes: Record<string, string>, machine: Record<string, unknown>): string {
  const image = Object.keys(hashes)
    .sort()
    .map((k) => `${k}=${hashes[k]?.slice(0, 16)}`)
    .join(",");
  return `state:${image},machine=${fnv1a(JSON.stringify(machine))}`;
}

/** FNV-1a, 32 bits, hex: a short, stable name for the machine's record (not a security hash: the key only tells records apart). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The raw state to restore, or null (none, or a damaged entry: the page then boots). */
export async function loadSnapshot(key: string): Promise<ArrayBuffer | null> {
  try {
    const value = await get<ArrayBuffer>(key, store());
    if (!(value instanceof ArrayBuffer)) return null;
    flagSnapshot(true);
    return await unpackState(value);
  } catch {
    return null;
  }
}

/** Keeps the state compressed; returns the bytes IndexedDB now holds for it. */
export async function saveSnapshot(key: string, state: ArrayBuffer): Promise<number> {
  const packed = await packState(state);
  await set(key, packed, store());
  flagSnapshot(true);
  return packed.byteLength;
}

export async function dropSnapshot(key: string): Promise<void> {
  await del(key, store());
  flagSnapshot(false);
}
