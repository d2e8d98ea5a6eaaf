import { describe, expect, it } from "vitest";
import { parsePinnedUrl, refForm } from "./index";

const HEX = "ab".repeat(32);

describe("three reference forms", () => {
  it.each([
    ["an absolute file path is absolute", "/opt/fullsend/agents/code.md", "absolute"],
    ["a bare relative path is relative", "agents/code.md", "relative"],
    ["a dot-relative path is relative", "./agents/code.md", "relative"],
    ["an https URL is a URL", `https://raw.githubusercontent.com/o/r/x/a.md#sha256=${HEX}`, "url"],
    ["an http URL is still a URL form (and refused later as not-https)", "http://example.com/a.md", "url"],
    ["a file: URL is a URL form, never a path", "file:///etc/passwd", "url"],
  ])("%s", (_, ref, form) => {
    expect(refForm(ref)).toBe(form);
  });
});

describe("every URL must carry #sha256=<64 hex> (the fragment after the last #)", () => {
  it.each([
    ["a lower-case pin is accepted as is", `https://x.example/a.md#sha256=${HEX}`, HEX],
    ["an upper-case pin is accepted and lower-cased", `https://x.example/a.md#sha256=${HEX.toUpperCase()}`, HEX],
    ["only the fragment after the last # counts", `https://x.example/a.md#frag#sha256=${HEX}`, HEX],
  ])("%s", (_, ref, pin) => {
    const parsed = parsePinnedUrl(ref);
    expect(parsed.ok && parsed.pin).toBe(pin);
  });

  it.each([
    ["no fragment at all", "https://x.example/a.md"],
    ["a fragment that is not a pin", "https://x.example/a.md#section"],
    ["a pin one hex digit short", `https://x.example/a.md#sha256=${HEX.slice(1)}`],
    ["a pin one hex digit long", `https://x.example/a.md#sha256=${HEX}0`],
    ["a non-hex digit", `https://x.example/a.md#sha256=${HEX.slice(1)}g`],
    ["another algorithm", `https://x.example/a.md#sha512=${HEX}`],
    ["an upper-case algorithm name", `https://x.example/a.md#SHA256=${HEX}`],
    ["a pin followed by a later non-pin fragment", `https://x.example/a.md#sha256=${HEX}#x`],
    ["whitespace around the pin", `https://x.example/a.md#sha256= ${HEX}`],
  ])("%s is hash-missing", (_, ref) => {
    const parsed = parsePinnedUrl(ref);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.verdict.code).toBe("hash-missing");
  });
});
