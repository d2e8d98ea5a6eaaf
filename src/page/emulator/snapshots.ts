import { createStore, del, get, set } from "idb-keyval";

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

export async function loadSnapshot(key: string): Promise<ArrayBuffer | null> {
  try {
    const value = await get<ArrayBuffer>(key, store);
    return value instanceof ArrayBuffer ? value : null;
  } catch {
    return null;
  }
}

export async function saveSnapshot(key: string, state: ArrayBuffer): Promise<void> {
  await set(key, state, store);
}

export async function dropSnapshot(key: string): Promise<void> {
  await del(key, store);
}
