import { describe, expect, it } from "vitest";
import { sha256Hex, toBase64, utf8 } from "../bytes";
import { EMPTY_HEAD, generateVaultKeys, vaultHeadUri } from "./index";
import { policyWith, str, text, vaultFixture } from "./testing/fixtures";

// The page encrypts, decrypts and signs the vault with keys it gets from the KMS for one
// command (docs/decisions/0006-vault-keys-stay-with-the-kms.md). Objects are ciphertext in the content-addressed
// cache; a signed manifest lists their hashes; anything changed in the cache is vault-tampered.

const policy = policyWith("notes");
const files = [
  { path: "README.md", bytes: text("# Notes\nkept in the page's vault\n") },
  { path: "todo/today.txt", bytes: text("- read the verdict table\n") },
];

async function seeded() {
  const f = vaultFixture();
  const { grant } = await f.kms.grant({ vaultId: "notes", op: "write", command: "seed" }, policy);
  const access = await f.kms.keysFor(grant?.id ?? null, "notes", "write", policy);
  if (!access.keys) throw new Error("no write keys");
  const written = await f.storage.write("notes", files, access.keys, { base: EMPTY_HEAD, known: null });
  if (!written.ok) throw new Error(written.verdict.reason);
  return { ...f, keys: access.keys, manifest: written.manifest, head: { generation: written.generation, manifest: written.manifest } };
}

describe("vault objects are encrypted at rest and signed", () => {
  it("reads back what was written, at generation 1", async () => {
    const f = await seeded();
    const read = await f.storage.read("notes", f.keys, null);
    if (!read.ok) throw new Error(read.verdict.reason);
    expect(read.snapshot.generation).toBe(1);
    expect(read.snapshot.manifest).toBe(f.manifest);
    expect(read.snapshot.objects.map((o) => [o.path, str(o.bytes)])).toEqual(files.map((o) => [o.path, str(o.bytes)]));
  });

  it("keeps only ciphertext in the cache: no blob contains a file's text", async () => {
    const f = await seeded();
    const blobs = await Promise.all((await f.casStore.listBlobs()).map((sha) => f.casStore.getBlob(sha)));
    expect(blobs).toHaveLength(3); // two objects and the manifest
    for (const blob of blobs) {
      expect(str(blob ?? new Uint8Array())).not.toContain("kept in the page's vault");
      expect(str(blob ?? new Uint8Array())).not.toContain("read the verdict table");
    }
  });

  it("counts generations: a second write is generation 2 and replaces the tree", async () => {
    const f = await seeded();
    const written = await f.storage.write("notes", [{ path: "only.txt", bytes: text("one") }], f.keys, { base: f.head, known: f.head });
    expect(written).toMatchObject({ ok: true, generation: 2 });
    const read = await f.storage.read("notes", f.keys, null);
    expect(read.ok && read.snapshot.objects.map((o) => o.path)).toEqual(["only.txt"]);
  });

  it("reads a vault nothing was pushed to as empty, generation 0", async () => {
    const f = vaultFixture();
    const keys = await generateVaultKeys();
    expect(await f.storage.read("notes", keys, null)).toMatchObject({ ok: true, snapshot: { generation: 0, manifest: null, objects: [] } });
  });
});

describe("a tampered object or manifest is refused on pull (vault-tampered, by kms)", () => {
  type Tamper = (f: Awaited<ReturnType<typeof seeded>>) => Promise<void>;
  const objectSha = async (f: Awaited<ReturnType<typeof seeded>>, path: string) => {
    const envelope = JSON.parse(str((await f.casStore.getBlob(f.manifest)) ?? new Uint8Array())) as { manifest: string };
    const body = JSON.parse(envelope.manifest) as { objects: { path: string; sha256: string }[] };
    return body.objects.find((o) => o.path === path)?.sha256 ?? "";
  };
  /** Writes a manifest blob with these contents and points the vault's head at it. */
  const repoint = async (f: Awaited<ReturnType<typeof seeded>>, bytes: Uint8Array) => {
    const sha = await sha256Hex(bytes);
    await f.casStore.putBlob(sha, bytes);
    await f.cas.rememberUrl(vaultHeadUri("notes"), sha);
  };
  const envelopeOf = async (f: Awaited<ReturnType<typeof seeded>>) =>
    JSON.parse(str((await f.casStore.getBlob(f.manifest)) ?? new Uint8Array())) as { manifest: string; signature: string };

  it.each<[string, Tamper, string]>([
    [
      "an object's ciphertext flipped in place",
      async (f) => {
        const sha = await objectSha(f, "README.md");
        const blob = (await f.casStore.getBlob(sha)) ?? new Uint8Array();
        blob[20] = (blob[20] ?? 0) ^ 1;
        await f.casStore.putBlob(sha, blob);
      },
      "object README.md (",
    ],
    [
      "an object removed from the cache",
      async (f) => {
        await f.casStore.deleteBlob(await objectSha(f, "todo/today.txt"));
      },
      "is missing in the cache",
    ],
    [
      "an object's blob replaced by the other object's ciphertext",
      async (f) => {
        const other = (await f.casStore.getBlob(await objectSha(f, "todo/today.txt"))) ?? new Uint8Array();
        await f.casStore.putBlob(await objectSha(f, "README.md"), other);
      },
      "is corrupt in the cache",
    ],
    [
      "the manifest's bytes edited in place",
      async (f) => {
        const blob = (await f.casStore.getBlob(f.manifest)) ?? new Uint8Array();
        await f.casStore.putBlob(f.manifest, utf8(str(blob).replace("README.md", "README.me")));
      },
      "no longer hash",
    ],
    [
      "a forged manifest (one object dropped) under the old signature",
      async (f) => {
        const envelope = await envelopeOf(f);
        const body = JSON.parse(envelope.manifest) as { objects: unknown[] };
        body.objects.pop();
        await repoint(f, utf8(JSON.stringify({ manifest: JSON.stringify(body), signature: envelope.signature })));
      },
      "signature does not verify",
    ],
    [
      "a manifest signed with another vault's key",
      async (f) => {
        const other = await generateVaultKeys();
        const { manifest } = await envelopeOf(f);
        const signature = toBase64(
          new Uint8Array(
            await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, other.sign, utf8(manifest) as Uint8Array<ArrayBuffer>),
          ),
        );
        await repoint(f, utf8(JSON.stringify({ manifest, signature })));
      },
      "signature does not verify",
    ],
    [
      "a head pointing at something that is not a manifest",
      async (f) => {
        await repoint(f, utf8("not json"));
      },
      "not a signed manifest",
    ],
    [
      "a head pointing at a manifest that is not in the cache",
      async (f) => {
        await f.cas.rememberUrl(vaultHeadUri("notes"), "0".repeat(64));
      },
      "missing from the cache",
    ],
  ])("refuses %s", async (_name, tamper, why) => {
    const f = await seeded();
    await tamper(f);
    const read = await f.storage.read("notes", f.keys, null);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.verdict).toMatchObject({ allowed: false, code: "vault-tampered", by: "kms" });
    expect(read.verdict.reason).toContain(why);
  });

  it("refuses a ciphertext moved to another path (bound to vault and path), even under a valid signature", async () => {
    const f = await seeded();
    // Re-sign a manifest that swaps the two paths: only the key holder could, and still the
    // ciphertexts do not authenticate under the other path.
    const envelope = await envelopeOf(f);
    const body = JSON.parse(envelope.manifest) as { objects: { path: string; sha256: string; size: number }[] };
    const [a, b] = body.objects;
    if (!a || !b) throw new Error("two objects expected");
    body.objects = [
      { ...a, sha256: b.sha256, size: b.size },
      { ...b, sha256: a.sha256, size: a.size },
    ];
    const manifest = JSON.stringify(body);
    const signature = toBase64(
      new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, f.keys.sign, utf8(manifest) as Uint8Array<ArrayBuffer>)),
    );
    const blob = utf8(JSON.stringify({ manifest, signature }));
    await f.casStore.putBlob(await sha256Hex(blob), blob);
    await f.cas.rememberUrl(vaultHeadUri("notes"), await sha256Hex(blob));
    const read = await f.storage.read("notes", f.keys, null);
    expect(read).toMatchObject({ ok: false, verdict: { code: "vault-tampered" } });
  });

  it("refuses to push over a tampered vault (a push would sign what it cannot vouch for)", async () => {
    const f = await seeded();
    await f.cas.rememberUrl(vaultHeadUri("notes"), "0".repeat(64));
    expect(await f.storage.write("notes", files, f.keys, { base: f.head, known: null })).toMatchObject({
      ok: false,
      verdict: { code: "vault-tampered", by: "kms" },
    });
  });
});
