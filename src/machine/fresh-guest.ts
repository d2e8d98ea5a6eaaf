import type { GuestControl } from "./guest-control";

/**
 * Every restored guest is a fresh machine. A saved state, above all the shipped one every visitor
 * restores, carries one kernel random pool and one clock for all of them: curl's TLS client
 * randoms and keys would repeat across visitors and the clock would say when the state was saved.
 * So before the restored shell's first prompt the host (the page, or the Node host) sends the
 * guest its clock and random bytes from crypto.getRandomValues on the control line
 * (./guest-control.ts). The guest (guest/src/tab-fresh.c) sets its clock, mixes the bytes into
 * the kernel's pool and forces a reseed of its CRNG, then answers; the host sends the shell its
 * first Enter only after that, so before any command runs, and nothing reaches the terminal.
 */
const SEED_BYTES = 64;

/** The `fresh` request: `SECONDS NANOSECONDS` (Unix time), then the seed in hex. */
export function freshRequest(nowMs: number, seed: Uint8Array): string {
  const seconds = Math.floor(nowMs / 1000);
  const nanos = Math.min(999_999_999, Math.floor((nowMs - seconds * 1000) * 1e6));
  const hex = Array.from(seed, (b) => b.toString(16).padStart(2, "0")).join("");
  return `fresh ${seconds} ${nanos} ${hex}`;
}

/** Gives the restored guest this host's clock and a new seed; rejects with the guest's reason when it could not. */
export async function freshen(control: GuestControl): Promise<void> {
  const seed = crypto.getRandomValues(new Uint8Array(SEED_BYTES));
  const request = freshRequest(Date.now(), seed);
  seed.fill(0);
  await control.request(request);
}
