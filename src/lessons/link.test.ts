import { describe, expect, it } from "vitest";
import { toBase64 } from "../bytes";
import {
  decodeLessonDraft,
  encodeLessonDraft,
  LESSON_DRAFT_MAX_BYTES,
  LESSON_LINK_MAX_CHARS,
  readLinkPolicy,
  SHARE_POLICY_LINK_MAX_CHARS,
} from "./link";

const YAML = "lesson: 1\ntitle: Draft\nsteps:\n  - title: S\n    run: echo hi\n    expect: [{ exit: 0 }]\n";
const deflate = async (bytes: Uint8Array) =>
  new Uint8Array(
    await new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("deflate-raw"))).arrayBuffer(),
  );
const b64url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

describe("a draft carried in a link", () => {
  it("round-trips a lesson's text through deflate-raw and base64url", async () => {
    const fragment = await encodeLessonDraft(YAML);
    expect(fragment).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeLessonDraft(fragment)).toEqual({ ok: true, text: YAML });
  });

  it(`refuses to encode a draft past ${LESSON_DRAFT_MAX_BYTES} bytes or ${LESSON_LINK_MAX_CHARS} link characters`, async () => {
    await expect(encodeLessonDraft("x".repeat(LESSON_DRAFT_MAX_BYTES + 1))).rejects.toThrow(/at most 65536/);
    // Incompressible text under the byte cap that still overflows the link.
    let noise = "";
    for (let i = 0; noise.length < 40_000; i++) noise += ((i * 2654435761) >>> 0).toString(36);
    await expect(encodeLessonDraft(noise)).rejects.toThrow(/at most 16384/);
  });

  const BAD: { name: string; fragment: () => Promise<string> | string; reason: RegExp }[] = [
    { name: "an empty fragment", fragment: () => "", reason: /carries no lesson/ },
    { name: "characters outside base64url", fragment: () => "abc+/=", reason: /not base64url/ },
    { name: "a fragment past the link cap", fragment: () => "A".repeat(LESSON_LINK_MAX_CHARS + 1), reason: /at most 16384/ },
    { name: "bytes that do not inflate", fragment: () => "AAAA", reason: /does not inflate/ },
    {
      name: "a draft that inflates past the cap (a deflate bomb)",
      fragment: async () => b64url(await deflate(new Uint8Array(LESSON_DRAFT_MAX_BYTES * 4))),
      reason: /inflates past 65536 bytes/,
    },
    {
      name: "a link-sized deflate bomb (8 MiB of zeros in under 16,384 characters), stopped while inflating",
      fragment: async () => b64url(await deflate(new Uint8Array(8 * 1024 * 1024))),
      reason: /^draft-too-large: the draft inflates past 65536 bytes/,
    },
    {
      name: "text that is not UTF-8",
      fragment: async () => b64url(await deflate(new Uint8Array([0xff, 0xfe, 0x80]))),
      reason: /not UTF-8/,
    },
  ];
  for (const bad of BAD)
    it(`refuses ${bad.name} as lesson-invalid with a reason`, async () => {
      const decoded = await decodeLessonDraft(await bad.fragment());
      expect(decoded.ok).toBe(false);
      if (decoded.ok) return;
      expect(decoded.code).toBe("lesson-invalid");
      expect(decoded.reason).toMatch(bad.reason);
    });
});

describe("a share link's inline policy is capped in link characters and inflated bytes", () => {
  it("reads a policy the share button packed", async () => {
    const policy = JSON.stringify({ hosts: [{ host: "api.github.com" }] });
    expect(await readLinkPolicy(b64url(await deflate(new TextEncoder().encode(policy))))).toEqual({ ok: true, text: policy });
  });

  it("85 KiB of link that inflates to 64 MiB is refused by its length, policy link cap", async () => {
    const packed = b64url(await deflate(new Uint8Array(64 * 1024 * 1024)));
    expect(packed.length).toBeGreaterThan(SHARE_POLICY_LINK_MAX_CHARS);
    const read = await readLinkPolicy(packed);
    expect(read).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the policy is \d+ characters; a policy link carries at most 16384/),
    });
  });

  it("a link under the cap that inflates to 8 MiB is refused while inflating, policy-too-large", async () => {
    const packed = b64url(await deflate(new Uint8Array(8 * 1024 * 1024)));
    expect(packed.length).toBeLessThanOrEqual(SHARE_POLICY_LINK_MAX_CHARS);
    expect(await readLinkPolicy(packed)).toEqual({ ok: false, reason: "policy-too-large: the policy inflates past 65536 bytes" });
  });
});
