import type { EventLog } from "../log";
import { h, replaceChildren } from "./dom";
import { type Guest, PROMPT } from "./emulator/boot";
import { DEMO_VAULT_ID } from "./vault-demo";

/** Where the page puts the guest client in the 9p share, as the guest sees it. */
export const SGIT = "sh /mnt/tab/bin/sgit";

/** Seed 004 (`004_38ec4e288fc63d5a.txt`), row 8, as the commands a user would type. */
export const VAULT_SCENARIO = {
  id: "vault-push-read",
  row: 8,
  title: "Push with a read grant",
  commands: [
    `${SGIT} pull ${DEMO_VAULT_ID} /tmp/notes && cat /tmp/notes/todo.txt`,
    "echo '- pushed from the guest' >> /tmp/notes/todo.txt",
    `G=$(${SGIT} grant ${DEMO_VAULT_ID} read) && SGIT_GRANT=$G ${SGIT} push ${DEMO_VAULT_ID} /tmp/notes`,
  ],
  explanation:
    "The guest pulls the demo vault (the page decrypts it with keys the KMS holds; the guest gets files, never a key), edits a note, then pushes under a grant that asked op=read. The KMS returned only the read key, so the new manifest cannot be signed: 403 vault-op-not-granted, by kms. Seed 004 row 8.",
} as const;

export interface VaultScenario {
  run(): Promise<void>;
}

/**
 * The row-8 button in the scenario bar, in the bar's style: a click prepares the demo vault,
 * types the commands into the guest one by one (waiting for the prompt), and says who decided.
 */
export function mountVaultScenario(options: {
  bar: HTMLElement;
  guest: Promise<Guest>;
  log: EventLog;
  /** Resolves once the demo vault and the guest client are in place. */
  prepare(): Promise<void>;
  selectPanel(id: string): void;
}): VaultScenario {
  const { bar, log } = options;
  const s = VAULT_SCENARIO;
  let busy = false;

  const run = async () => {
    if (busy) return;
    busy = true;
    try {
      const guest = await options.guest;
      await options.prepare();
      options.selectPanel("proxy");
      const explanation = bar.querySelector(".scenario-explanation");
      if (explanation) replaceChildren(explanation, h("strong", {}, `Row ${s.row}: ${s.title}. `), s.explanation);
      log.append({ kind: "scenario", id: s.id, phase: "start", message: s.commands.join(" && ") });
      for (const command of s.commands) {
        const mark = guest.console.mark;
        guest.console.type(`${command}\n`);
        await guest.console.waitFor(PROMPT, mark + command.length);
      }
      log.append({ kind: "scenario", id: s.id, phase: "done", message: "watch the proxy panel" });
    } catch (error) {
      log.append({ kind: "scenario", id: s.id, phase: "failed", message: (error as Error).message });
    } finally {
      busy = false;
    }
  };

  const button = h(
    "button",
    { class: "small", title: s.explanation, attrs: { type: "button", "data-scenario": s.id }, on: { click: () => void run() } },
    `${s.row}. ${s.title}`,
  );
  // Beside rows 1-7, before the explanation line the bar keeps last.
  bar.insertBefore(button, bar.querySelector(".scenario-explanation"));
  bar.hidden = false;
  return { run };
}
