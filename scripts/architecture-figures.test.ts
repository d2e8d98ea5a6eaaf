import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BOOT_FILE_NAMES, SHIPPED_STATE_FILE } from "../src/machine";

// docs/architecture.md gives figures of the shipped guest that change whenever the guest is
// rebuilt: the shipped state's size, the kernel and initramfs it replaces, and their ratio.
// This holds the sentence to the committed files, so a rebuilt guest cannot leave it wrong.

const ARCHITECTURE = "docs/architecture.md";
const SENTENCE = /The download \(([\d.]+) MB\) is ([\d.]+)× the kernel and initramfs it replaces \(([\d.]+) MB/;

const size = (name: string) => statSync(`vendor/guest/${name}`).size;

describe("docs/architecture.md's figures of the shipped state", () => {
  it("say the state's size, the image's it replaces and their ratio as the committed files have them", () => {
    const text = readFileSync(ARCHITECTURE, "utf8").replace(/\s+/g, " ");
    const match = SENTENCE.exec(text);
    expect(
      match,
      `${ARCHITECTURE} has no sentence like "The download (N MB) is R× the kernel and initramfs it replaces (M MB"`,
    ).not.toBeNull();
    const [, stateMb, ratio, replacedMb] = match as RegExpExecArray;
    const state = size(SHIPPED_STATE_FILE);
    const replaced = size(BOOT_FILE_NAMES.bzImage) + size(BOOT_FILE_NAMES.initrd);
    expect(stateMb).toBe((state / 1e6).toFixed(2));
    expect(replacedMb).toBe((replaced / 1e6).toFixed(2));
    expect(ratio).toBe((state / replaced).toFixed(2));
  });
});
