import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BOOT_FILE_NAMES,
  type BootFiles,
  parseSha256Sums,
  SHIPPED_STATE_FILE,
  SHIPPED_STATE_RECORD,
  StateRecord,
  shippedStateMismatch,
} from "../../machine";
import { messageOf } from "../../platform";

/** The guest image the page ships (vendor/guest), read from this checkout. */
export const GUEST_IMAGE_DIR = fileURLToPath(new URL("../../../vendor/guest/", import.meta.url));

export class GuestImageError extends Error {
  override name = "GuestImageError";
}

/** How the headless guest starts: the shipped state restored, or a cold boot of the image. */
export type GuestStart = { kind: "state"; state: ArrayBuffer; note: string } | { kind: "boot"; files: BootFiles; note: string };

function verified(dir: string, sums: Map<string, string>, name: string): ArrayBuffer {
  const expected = sums.get(name);
  if (!expected) throw new GuestImageError(`SHA256SUMS does not list ${name}: the guest image in ${dir} is incomplete`);
  const path = join(dir, name);
  if (!existsSync(path)) throw new GuestImageError(`${path} is missing; is vendor/guest complete?`);
  const bytes = readFileSync(path);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== expected) throw new GuestImageError(`${name}: sha256 ${actual} does not match SHA256SUMS (${expected})`);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/**
 * The files the guest starts from, each checked against SHA256SUMS as the page checks its
 * downloads: the shipped state when it was made from this image on this machine (unless `cold`),
 * else the boot files.
 */
export function readGuestStart(options: { dir?: string; cold?: boolean } = {}): GuestStart {
  const dir = options.dir ?? GUEST_IMAGE_DIR;
  const sumsPath = join(dir, "SHA256SUMS");
  if (!existsSync(sumsPath)) throw new GuestImageError(`${sumsPath} is missing: the guest image is not installed (vendor/guest)`);
  const sums = parseSha256Sums(readFileSync(sumsPath, "utf8"));
  let why = "asked for a cold boot";
  if (!options.cold) {
    if (sums.has(SHIPPED_STATE_FILE) && sums.has(SHIPPED_STATE_RECORD)) {
      let record: ReturnType<typeof StateRecord.parse>;
      try {
        record = StateRecord.parse(JSON.parse(new TextDecoder().decode(verified(dir, sums, SHIPPED_STATE_RECORD))));
      } catch (error) {
        if (error instanceof GuestImageError) throw error;
        throw new GuestImageError(`${SHIPPED_STATE_RECORD} is not a shipped-state record: ${messageOf(error)}`);
      }
      const mismatch = shippedStateMismatch(record, sums);
      if (!mismatch) return { kind: "state", state: verified(dir, sums, SHIPPED_STATE_FILE), note: "the shipped state" };
      why = `not restoring the shipped state: ${mismatch}`;
    } else why = "the image has no shipped state";
  }
  const files: BootFiles = {
    bios: verified(dir, sums, BOOT_FILE_NAMES.bios),
    vgaBios: verified(dir, sums, BOOT_FILE_NAMES.vgaBios),
    bzImage: verified(dir, sums, BOOT_FILE_NAMES.bzImage),
    initrd: verified(dir, sums, BOOT_FILE_NAMES.initrd),
  };
  return { kind: "boot", files, note: `a cold boot (${why})` };
}
