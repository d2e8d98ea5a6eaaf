import { z } from "zod";
import { machineRecord } from "./machine";

/**
 * The guest image's files as every host reads them (vendor/guest): SHA256SUMS pins each one,
 * and the shipped post-boot state (made by scripts/make-guest-state.ts) restores only for the
 * image and machine its record names (guest/README.md, "The shipped state").
 */

/** The files a cold boot needs, by their names in vendor/guest/SHA256SUMS. */
export const BOOT_FILE_NAMES = { bios: "seabios.bin", vgaBios: "vgabios.bin", bzImage: "bzImage", initrd: "initramfs.cpio.zst" } as const;
export const SHIPPED_STATE_FILE = "state.bin.zst";
export const SHIPPED_STATE_RECORD = "state.json";

/** Parses `sha256sum` output: `<64 hex>  <name>` per line. */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{64}) [ *]?(\S+)$/.exec(line.trim());
    if (m?.[1] && m[2]) sums.set(m[2], m[1]);
  }
  return sums;
}

// Pure: the emulator's worker imports this folder for the machine's options and needs no zod.
export const StateRecord = /* @__PURE__ */ z.object({
  file: z.literal(SHIPPED_STATE_FILE),
  bytes: z.number().int().positive(),
  raw_bytes: z.number().int().positive(),
  image: z.record(z.string(), z.string()),
  machine: z.record(z.string(), z.unknown()),
});

/** Why the shipped state cannot be used for this image, or null when it can. */
export function shippedStateMismatch(record: z.infer<typeof StateRecord>, sums: Map<string, string>): string | null {
  for (const [name, hash] of Object.entries(record.image))
    if (sums.get(name) !== hash) return `it was made from another ${name} than SHA256SUMS lists`;
  const machine = machineRecord();
  if (JSON.stringify(record.machine) !== JSON.stringify(machine))
    return "it was made on another machine than the page's (memory, devices, cmdline)";
  return null;
}
