import { utf8 } from "../bytes";

/** The share operations freshening needs (the page's Guest and the Node host's both have them). */
export interface FreshTarget {
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  hasFile(path: string): Promise<boolean>;
}

/**
 * Every restored guest is a fresh machine. A saved state, above all the shipped one every visitor
 * restores, carries one kernel random pool and one clock for all of them: curl's TLS client
 * randoms and keys would repeat across visitors and the clock would say when the state was saved.
 * So before the restored shell's first prompt the host (the page, or the Node host) leaves `fresh` in its share: its clock and
 * random bytes from crypto.getRandomValues. The prompt hook (guest/src/tab-prompt.c) applies
 * it (guest/src/tab-fresh.c): it sets the clock, mixes the bytes into the kernel's pool,
 * forces a reseed of its CRNG and deletes the file, all before the prompt shows, so before any
 * command runs, and nothing reaches the terminal.
 */
export const FRESH_FILE = "fresh";
const SEED_BYTES = 64;

/** The file tab-fresh reads: `SECONDS NANOSECONDS` (Unix time), then the seed in hex. */
export function freshRequest(nowMs: number, seed: Uint8Array): string {
  const seconds = Math.floor(nowMs / 1000);
  const nanos = Math.min(999_999_999, Math.floor((nowMs - seconds * 1000) * 1e6));
  const hex = Array.from(seed, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${seconds} ${nanos}\n${hex}\n`;
}

/** Leaves this host's clock and a new seed where the restored guest's next prompt picks them up. */
export async function offerFreshness(guest: FreshTarget): Promise<void> {
  const seed = crypto.getRandomValues(new Uint8Array(SEED_BYTES));
  await guest.writeFile(FRESH_FILE, utf8(freshRequest(Date.now(), seed)));
  seed.fill(0);
}

/** True once the guest applied the request (tab-fresh deletes the file only after it succeeded). */
export async function freshnessApplied(guest: FreshTarget): Promise<boolean> {
  return !(await guest.hasFile(FRESH_FILE));
}
