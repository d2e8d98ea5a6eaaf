import { createStore, del, get, set } from "idb-keyval";
import { packState, unpackState } from "./state-codec";

/**
 * Saved guest states in IndexedDB, keyed by the hashes of the image they were taken from:
 * a state only restores on the exact same kernel, initrd and BIOS.
 */
const store = createStore("linux-in-a-tab-snapshots", "states");

export function snapshotKey(hashes: Record<string, string>): string {
  return `state:${Object.keys(hashes)
    .sort()
    .map((k) => `${k}=${hashes[k]?.slice(0, 16)}`)
    .join(",")}`;
}

/** The raw state to restore, or null (none, or a damaged entry: the page then boots). */
export async function loadSnapshot(key: string): Promise<ArrayBuffer | null> {
  try {
    const value = await get<ArrayBuffer>(key, store);
    return value instanceof ArrayBuffer ? await unpackState(value) : null;
  } catch {
    return null;
  }
}

/** Keeps the state compressed; returns the bytes IndexedDB now holds for it. */
export async function saveSnapshot(key: string, state: ArrayBuffer): Promise<number> {
  const packed = await packState(state);
  await set(key, packed, store);
  return packed.byteLength;
}

export async function dropSnapshot(key: string): Promise<void> {
  await del(key, store);
}
