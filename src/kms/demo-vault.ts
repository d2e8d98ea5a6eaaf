import { utf8 } from "../bytes";
import type { Verdict } from "../log";
import { DEMO_VAULT_ID, type Policy } from "../policy";
import type { VaultService } from "./service";

/** The demo vault (src/policy owns the id: it is the one vault a lesson or link policy may name). */
export { DEMO_VAULT_ID };

const DEMO_FILES: readonly { path: string; text: string }[] = [
  {
    path: "README.md",
    text: "# demo-notes\n\nA vault kept by the page: encrypted in its cache, signed by its KMS.\nThe guest sees these files, never a key.\n",
  },
  { path: "todo.txt", text: "- pull the vault\n- edit a note\n" },
  { path: "notes/row-8.txt", text: "Row 8: a push under a read grant cannot be signed (.kms).\n" },
];

/**
 * Seeds the demo vault with its few files when nothing was ever pushed to it (idempotent), as
 * the host itself: `policy` must name the vault (the host's own grant is checked against it).
 * Both hosts seed the same files (the page's vault feature, the Node guest of `lesson test`).
 */
export async function seedDemoVault(service: VaultService, policy: Policy): Promise<Verdict | null> {
  if (await service.storage.head(DEMO_VAULT_ID)) return null;
  return service.pushAsHost(
    DEMO_VAULT_ID,
    DEMO_FILES.map((f) => ({ path: f.path, bytes: utf8(f.text) })),
    policy,
    "page: seed the demo vault",
  );
}
