import type { z } from "zod";
import { decodeUtf8Strict, fromBase64, sha256Hex, toBase64 } from "../bytes";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import { headerValue, type OwnEndpointSpec, type OwnRequest, type OwnResponse } from "../proxy";
import { type Grant, grantLabel, type Kms } from "./kms";
import { GrantRequest, PullRequest, PushRequest } from "./schema";
import { createSerial } from "./serial";
import type { VaultObject, VaultStorage } from "./vault";

/**
 * The proxy's vault endpoints (plugged into `createProxy({ handlers })`), the proxy's side of
 * row 8 of the verdict table (docs/decisions/0006-vault-keys-stay-with-the-kms.md): they get keys from the KMS for one command's grant, decrypt, encrypt and
 * sign in the page, and answer the guest with objects, never with a key.
 *
 *   POST /v0/vault/grant {vault_id, op, command}  → {grant, vault_id, op, command, expires_at}
 *   POST /v0/vault/pull  {vault_id, op: "read"}   → {vault_id, generation, manifest, objects: [{path, size, sha256, content_base64}]}
 *   POST /v0/vault/push  {vault_id, base: {generation, manifest}, objects: [{path, content_base64}]}
 *                                                 → {vault_id, generation, manifest, objects}
 *
 * pull and push name their grant in the `X-Vault-Grant-Token` header (a header the proxy's
 * decision event redacts, so the token never reaches `GET /v0/log`). A write grant waits for
 * the operator (the KMS's approver); a read grant does not. A push lands only on the head it
 * names as its base; a pull or push over a head older than the KMS remembers is refused
 * `vault-tampered` (a rollback). Pulls and pushes of one vault run one at a time.
 */

export const GRANT_HEADER = "x-vault-grant-token";

export interface VaultEndpointOptions {
  kms: Kms;
  storage: VaultStorage;
  log: EventLog;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; verdict: Verdict; vaultId: string };

function parseBody<S extends z.ZodType>(schema: S, body: Uint8Array): Parsed<z.output<S>> {
  const text = decodeUtf8Strict(body);
  let json: unknown;
  try {
    json = JSON.parse(text ?? "");
  } catch {
    return { ok: false, vaultId: "", verdict: refuse("bad-request", "the body is not JSON", "kms") };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const vaultId =
    typeof json === "object" && json !== null && typeof (json as { vault_id?: unknown }).vault_id === "string"
      ? (json as { vault_id: string }).vault_id.slice(0, 64)
      : "";
  const issues = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "body"}: ${i.message}`).join("; ");
  return { ok: false, vaultId, verdict: refuse("bad-request", issues, "kms") };
}

const json = (value: unknown): string => `${JSON.stringify(value)}\n`;

const vaultEndpoint = (handle: OwnEndpointSpec["handle"]): OwnEndpointSpec => ({ mode: "vault", json: true, handle });

/** The vault's routes on the proxy: filed as "vault" decisions, JSON bodies only. */
export type VaultHandlers = Readonly<Record<"POST /v0/vault/grant" | "POST /v0/vault/pull" | "POST /v0/vault/push", OwnEndpointSpec>>;

export function createVaultHandlers(options: VaultEndpointOptions): VaultHandlers {
  const { kms, storage, log } = options;
  const oneAtATime = createSerial();

  const record = (
    op: "pull" | "push",
    vaultId: string,
    verdict: Verdict,
    grant?: Grant,
    extra: { objects?: number; manifest?: string } = {},
  ) =>
    log.append({
      kind: "kms.event",
      op,
      vaultId,
      command: grant?.command ?? "",
      ...(grant ? { grant: grantLabel(grant.id), access: grant.op, expiresAt: grant.expiresAt } : {}),
      ...extra,
      ...verdict,
    });

  const refused = (op: "pull" | "push" | "grant", vaultId: string, verdict: Verdict, grant?: Grant): OwnResponse => {
    if (op !== "grant") record(op, vaultId, verdict, grant);
    return { verdict, target: `vault:${vaultId || "?"}/${op}` };
  };

  async function pull(vaultId: string, request: OwnRequest): Promise<OwnResponse> {
    const access = await kms.keysFor(headerValue(request.headers, GRANT_HEADER) ?? null, vaultId, "read", request.policy);
    if (!access.keys) return refused("pull", vaultId, access.verdict, access.grant);
    const read = await storage.read(vaultId, access.keys, await kms.knownHead(vaultId));
    if (!read.ok) return refused("pull", vaultId, read.verdict, access.grant);
    const { snapshot } = read;
    // A verified head newer than the KMS remembers (its memory lagged, or predates this check) becomes the floor.
    if (snapshot.manifest) await kms.rememberHead(vaultId, { generation: snapshot.generation, manifest: snapshot.manifest });
    const lines: string[] = [];
    for (const object of snapshot.objects)
      lines.push(
        JSON.stringify({
          path: object.path,
          size: object.bytes.length,
          sha256: await sha256Hex(object.bytes),
          content_base64: toBase64(object.bytes),
        }),
      );
    // One object per line, so a shell client can read it with sed (guest/sgit).
    const head = JSON.stringify({ vault_id: vaultId, generation: snapshot.generation, manifest: snapshot.manifest }).slice(0, -1);
    const body = `${head},"objects":[\n${lines.join(",\n")}${lines.length ? "\n" : ""}]}\n`;
    const verdict = allow(
      `pulled ${snapshot.objects.length} objects of vault ${vaultId} (generation ${snapshot.generation}), decrypted in the page`,
      "kms",
    );
    record("pull", vaultId, verdict, access.grant, {
      objects: snapshot.objects.length,
      ...(snapshot.manifest ? { manifest: snapshot.manifest } : {}),
    });
    return { verdict, target: `vault:${vaultId}/pull`, body };
  }

  async function push(wanted: PushRequest, request: OwnRequest): Promise<OwnResponse> {
    const { vault_id: vaultId, base } = wanted;
    const access = await kms.keysFor(headerValue(request.headers, GRANT_HEADER) ?? null, vaultId, "write", request.policy);
    if (!access.keys) return refused("push", vaultId, access.verdict, access.grant);
    let objects: VaultObject[];
    try {
      objects = wanted.objects.map((o) => ({ path: o.path, bytes: fromBase64(o.content_base64) }));
    } catch (error) {
      return refused("push", vaultId, refuse("bad-request", `content_base64: ${messageOf(error)}`, "kms"), access.grant);
    }
    const written = await storage.write(vaultId, objects, access.keys, { base, known: await kms.knownHead(vaultId) });
    if (!written.ok) return refused("push", vaultId, written.verdict, access.grant);
    await kms.rememberHead(vaultId, { generation: written.generation, manifest: written.manifest });
    const verdict = allow(
      `pushed ${objects.length} objects to vault ${vaultId}: generation ${written.generation} on generation ${base.generation}, manifest signed in the page`,
      "kms",
    );
    record("push", vaultId, verdict, access.grant, { objects: objects.length, manifest: written.manifest });
    return {
      verdict,
      target: `vault:${vaultId}/push`,
      body: json({ vault_id: vaultId, generation: written.generation, manifest: written.manifest, objects: objects.length }),
    };
  }

  return {
    "POST /v0/vault/grant": vaultEndpoint(async (request) => {
      const parsed = parseBody(GrantRequest, request.body);
      if (!parsed.ok) {
        log.append({ kind: "kms.event", op: "grant", vaultId: parsed.vaultId, command: "", ...parsed.verdict });
        return refused("grant", parsed.vaultId, parsed.verdict);
      }
      const { vault_id: vaultId, op, command } = parsed.value;
      // The guest asks: a write grant waits here for the operator's answer (bounded).
      const outcome = await kms.grant({ vaultId, op, command, requester: "guest" }, request.policy);
      if (!outcome.grant) return refused("grant", vaultId, outcome.verdict);
      const { grant } = outcome;
      return {
        verdict: outcome.verdict,
        target: `vault:${vaultId}/grant`,
        body: json({ grant: grant.id, vault_id: vaultId, op: grant.op, command: grant.command, expires_at: grant.expiresAt }),
      };
    }),

    "POST /v0/vault/pull": vaultEndpoint(async (request) => {
      const parsed = parseBody(PullRequest, request.body);
      if (!parsed.ok) return refused("pull", parsed.vaultId, parsed.verdict);
      const vaultId = parsed.value.vault_id;
      return oneAtATime(vaultId, () => pull(vaultId, request));
    }),

    "POST /v0/vault/push": vaultEndpoint(async (request) => {
      const parsed = parseBody(PushRequest, request.body);
      if (!parsed.ok) return refused("push", parsed.vaultId, parsed.verdict);
      return oneAtATime(parsed.value.vault_id, () => push(parsed.value, request));
    }),
  };
}
