import { readFileSync } from "node:fs";
import { utf8 } from "../../bytes";
import {
  type ConsoleDriver,
  createConsoleDriver,
  createLandlockAuditReader,
  type GuestConsole,
  type LateReports,
  parseGuestLine,
} from "../../console";
import { connectGuestNetwork, type GuestNetwork } from "../../guest-network";
import type { EventLog } from "../../log";
import { freshen, type GuestControl, winsizeRequest } from "../../machine";
import { messageOf, withinTime } from "../../platform";
import type { PolicyHolder } from "../../policy";
import { createSessionCa } from "../../tls";
import { nodeTimers } from "../node-timers";
import { type CommandRun, createCommandRunner } from "./command-window";
import { readGuestStart } from "./image";
import { startNodeMachine } from "./machine";
import { createNodeGuestServices, type NodeGuestServices, SGIT_SCRIPT, SGIT_SHARE_PATH, seedNodeDemoVault } from "./services";
import { answerCursorQueries } from "./terminal";
import type { GuestUpstream } from "./upstreams";

export interface NodeGuestOptions {
  log: EventLog;
  policy: PolicyHolder;
  /** Where the proxy's allowed requests go (./upstreams.ts). */
  upstream: GuestUpstream;
  /** Boot the image cold instead of restoring the shipped state. */
  cold?: boolean;
  /** The guest image's folder (default vendor/guest). */
  imageDir?: string;
  /** The terminal's size the guest's shell is told (default 200 columns, so lines rarely wrap). */
  size?: { cols: number; rows: number };
}

export interface NodeGuest {
  console: GuestConsole;
  driver: ConsoleDriver;
  network: GuestNetwork;
  services: NodeGuestServices;
  /** The guest's control line (src/machine/guest-control.ts): its terminal's size. */
  control: GuestControl;
  /** Types one command at the idle prompt; resolves with its window once it settled. */
  run(command: string, options: { timeoutMs: number; lateReports?: LateReports }): Promise<CommandRun>;
  destroy(): Promise<void>;
}

/** A restore takes seconds; a cold boot of the emulated machine can take minutes on a busy one. */
const RESTORE_LIMIT_MS = 180_000;
const BOOT_LIMIT_MS = 900_000;

/**
 * The shipped guest under Node, as the page starts it (src/page/emulator/start-guest.ts): the
 * image files checked against SHA256SUMS, the shipped state restored (or a cold boot), the NIC
 * on the same peer, proxy and TLS terminator (src/guest-network) with this process's session
 * CA, the CA written into the share where the guest reads it on every TLS connection, a
 * restored guest made fresh (clock, random seed) before its first prompt, and its report lines
 * (llrun's ruleset, tcpconnect's result) appended to the log.
 */
export async function startNodeGuest(options: NodeGuestOptions): Promise<NodeGuest> {
  const { log } = options;
  const start = readGuestStart({ ...(options.imageDir ? { dir: options.imageDir } : {}), cold: options.cold ?? false });
  const ca = await createSessionCa();
  const restoring = start.kind === "state";
  log.append({ kind: "boot.progress", phase: "start", message: restoring ? `restoring ${start.note}` : `booting Linux: ${start.note}` });
  const began = Date.now();
  const machine = startNodeMachine(restoring ? { state: start.state } : { files: start.files });
  const services = createNodeGuestServices(log);
  const network = connectGuestNetwork({
    link: machine.link,
    log,
    policy: options.policy,
    ca,
    fetch: options.upstream.fetch,
    upstreamPath: options.upstream.upstreamPath,
    ...(options.upstream.resolveHost ? { resolveHost: options.upstream.resolveHost } : {}),
    timers: nodeTimers,
    handlers: services.handlers,
  });
  const size = options.size ?? { cols: 200, rows: 50 };
  const stopAnswering = answerCursorQueries(machine.console, size.cols);
  const stopLines = machine.console.onLine((line) => {
    const event = parseGuestLine(line);
    if (event) log.append(event);
  });
  // The kernel's own refusals, from the control line as in the page (docs/decisions/0029).
  const audit = createLandlockAuditReader();
  machine.control.onAuditRecord((type, text) => {
    const decision = audit.read(type, text);
    if (decision) log.append(decision);
  });
  const destroy = async () => {
    stopAnswering();
    stopLines();
    network.close();
    await machine.destroy().catch(() => undefined);
  };
  try {
    await withinTime(machine.ready, restoring ? RESTORE_LIMIT_MS : BOOT_LIMIT_MS, restoring ? "the restore" : "the boot to a prompt");
    log.append({
      kind: "boot.progress",
      phase: restoring ? "snapshot-restore" : "ready",
      message: `${restoring ? `restored ${start.note}` : "booted"} in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    });
    await machine.writeFile("tls/ca.pem", utf8(ca.certPem));
    await machine.writeFile(SGIT_SHARE_PATH, readFileSync(SGIT_SCRIPT));
    await seedNodeDemoVault(services, options.policy.current());
    await machine.control.request(winsizeRequest(size.rows, size.cols));
    if (restoring) {
      // As in the page: the guest takes a fresh clock and seed on its control line before the
      // restored shell's first prompt, so before any command runs.
      const fresh = await freshen(machine.control).then(
        () => null,
        (error: unknown) => messageOf(error),
      );
      log.append({
        kind: "boot.progress",
        phase: fresh === null ? "fresh" : "error",
        message:
          fresh === null
            ? "the restored guest took this host's clock and a fresh random seed"
            : `the restored guest did not take a fresh clock and random seed (${fresh})`,
      });
      if (fresh !== null) throw new Error(`the restored guest did not take a fresh clock and random seed (${fresh})`);
      await withinTime(machine.console.requestPrompt(), RESTORE_LIMIT_MS, "the restored guest's fresh prompt");
    }
  } catch (error) {
    await destroy();
    throw error;
  }
  const driver = createConsoleDriver(machine.console);
  const runner = createCommandRunner({ log, console: machine.console, driver, writeFile: (path, bytes) => machine.writeFile(path, bytes) });
  return { console: machine.console, driver, network, services, control: machine.control, run: runner.run, destroy };
}
