import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BOOT_FILE_NAMES, parseSha256Sums, SHIPPED_STATE_FILE, SHIPPED_STATE_RECORD, StateRecord } from "../src/machine";

// The committed image (vendor/guest), as make-guest-state.ts and guest/build.sh left it.
const dir = join(resolve(fileURLToPath(new URL("..", import.meta.url))), "vendor/guest");
const size = (name: string) => statSync(join(dir, name)).size;

describe("the committed shipped state", () => {
  it("is at most the size of the image a cold boot downloads instead (bzImage and initramfs)", () => {
    // The performance issue's size goal: a first visit downloads no more than the files it replaces.
    expect(size(SHIPPED_STATE_FILE)).toBeLessThanOrEqual(size(BOOT_FILE_NAMES.bzImage) + size(BOOT_FILE_NAMES.initrd));
  });

  it("is the file state.json describes, pinned in SHA256SUMS", () => {
    const record = StateRecord.parse(JSON.parse(readFileSync(join(dir, SHIPPED_STATE_RECORD), "utf8")));
    const bytes = readFileSync(join(dir, SHIPPED_STATE_FILE));
    expect(record.bytes).toBe(bytes.byteLength);
    expect(record.raw_bytes).toBeGreaterThan(record.bytes);
    const sums = parseSha256Sums(readFileSync(join(dir, "SHA256SUMS"), "utf8"));
    expect(sums.get(SHIPPED_STATE_FILE)).toBe(createHash("sha256").update(bytes).digest("hex"));
  });
});
