import type { z } from "zod";
import type { EventLog } from "../../log";
import { SHIPPED_STATE_FILE, SHIPPED_STATE_RECORD, StateRecord, shippedStateMismatch } from "../../machine";
import { messageOf } from "../../platform";
import { downloadVerified, GuestImageError } from "./images";

/**
 * The shipped post-boot state: the guest saved at its first prompt by the build
 * (scripts/make-guest-state.ts), zstd-compressed, listed in SHA256SUMS like every guest file.
 * A first visit downloads and restores it instead of booting (guest/README.md, "The shipped
 * state"). state.json says what it was made from; the page restores it only when that is this
 * image (the SHA256SUMS it just read) and this machine (src/machine/machine.ts).
 */
const STATE = SHIPPED_STATE_FILE;
const RECORD = SHIPPED_STATE_RECORD;

export interface ShippedState {
  /** The compressed state (the worker decompresses it before v86 restores it: src/machine/raw-state.ts). */
  state: ArrayBuffer;
  /** Bytes downloaded, and the guest memory it unpacks to. */
  bytes: number;
  rawBytes: number;
}

/**
 * Downloads and verifies the shipped state; null when the image has none or it does not fit
 * (then the page boots, and says why on the log). A file whose bytes do not match SHA256SUMS is
 * an error, as for every guest file.
 */
export async function loadShippedState(base: string, sums: Map<string, string>, log: EventLog): Promise<ShippedState | null> {
  if (!sums.has(STATE) || !sums.has(RECORD)) return null;
  const recordBytes = (await downloadVerified(base, [RECORD], sums, log, "reading the shipped state's record")).get(RECORD);
  let record: z.infer<typeof StateRecord>;
  try {
    record = StateRecord.parse(JSON.parse(new TextDecoder().decode(recordBytes)));
  } catch (error) {
    throw new GuestImageError(`${RECORD} is not a shipped-state record: ${messageOf(error)}`);
  }
  const mismatch = shippedStateMismatch(record, sums);
  if (mismatch) {
    log.append({ kind: "boot.progress", phase: "verify", message: `not restoring the shipped state: ${mismatch}; booting instead` });
    return null;
  }
  const started = performance.now();
  const state = (await downloadVerified(base, [STATE], sums, log, "downloading the shipped guest state")).get(STATE) as ArrayBuffer;
  const seconds = (performance.now() - started) / 1000;
  log.append({
    kind: "boot.progress",
    phase: "verify",
    message: `the shipped state matches SHA256SUMS (${(state.byteLength / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s, ${(state.byteLength / 1e6 / seconds).toFixed(1)} MB/s)`,
  });
  return { state, bytes: state.byteLength, rawBytes: record.raw_bytes };
}
