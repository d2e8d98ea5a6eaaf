import { DEMO_VAULT_ID } from "../../kms";
import type { Scenario } from "./scenarios";

/** Where the page puts the guest client in the 9p share, as the guest sees it. */
export const SGIT = "sh /mnt/tab/bin/sgit";

/** Row 8 of the verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md), as the commands a user would type. */
export const VAULT_SCENARIO: Omit<Scenario, "prepare"> = {
  id: "vault-push-read",
  row: 8,
  title: "Push with a read grant",
  commands: [
    `${SGIT} pull ${DEMO_VAULT_ID} /tmp/notes && cat /tmp/notes/todo.txt`,
    "echo '- pushed from the guest' >> /tmp/notes/todo.txt",
    `G=$(${SGIT} grant ${DEMO_VAULT_ID} read) && SGIT_GRANT=$G ${SGIT} push ${DEMO_VAULT_ID} /tmp/notes`,
  ],
  explanation:
    "The guest pulls the demo vault (the page decrypts it with keys the KMS holds; the guest gets files, never a key), edits a note, then pushes under a grant that asked op=read. The KMS returned only the read key, so the new manifest cannot be signed: 403 vault-op-not-granted, by kms. Verdict table, row 8.",
  expect: { code: "vault-op-not-granted", by: "kms", panel: "proxy" },
};
