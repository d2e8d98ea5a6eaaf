// scripts/make-guest-state.ts: the shipped post-boot state (guest/README.md, "The shipped state").
//
//   npx tsx scripts/make-guest-state.ts [--if-stale] [--dir vendor/guest] [--work guest/.build]
//
// Boots vendor/guest in v86 under Node on exactly the page's machine (src/machine/machine.ts),
// holds its shell before the first prompt (the build leaves `hold` in the share; /etc/profile waits
// in `read`), has the guest drop its caches and zero its free memory (`prepare-state` on the
// control line: guest/src/tab-control.c runs tab-prepare-state), saves the
// state there, compresses it with zstd, restores it in a second emulator to check that it
// answers a command and takes a fresh clock and seed (tab-fresh), then writes state.bin.zst and
// state.json (what it was made from) into the image folder. guest/build.sh runs it and rewrites
// SHA256SUMS. --if-stale: do nothing when state.json already names these image files and this
// machine.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { V86 } from "v86";
import { attachGuestControl, type BootFiles, freshen, machineOptions, machineRecord } from "../src/machine";
import { systemTimers } from "../src/platform";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? resolve(args[i + 1] as string) : fallback;
};
const dir = opt("--dir", join(root, "vendor/guest"));
const work = opt("--work", join(root, "guest/.build"));
const wasmPath = join(root, "node_modules/v86/build/v86.wasm");
const STATE = "state.bin.zst";
const PROMPT_END = "\x1b]133;B\x07";
/** What /etc/profile prints when the build's `hold` makes it wait before the first prompt. */
const HOLDING = "tab: holding for the state to be saved";
const IMAGE_FILES = { bios: "seabios.bin", vgaBios: "vgabios.bin", bzImage: "bzImage", initrd: "initramfs.cpio.zst" } as const;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const log = (text: string) => console.log(`[make-guest-state] ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function read(name: string): ArrayBuffer {
  const b = readFileSync(join(dir, name));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
}

interface Fs9p {
  SearchPath(path: string): { id: number };
  Unlink(parentId: number, name: string): number;
}

/** One emulator with its serial output as text, a way to wait for what it prints, and its control line. */
function start(options: ConstructorParameters<typeof V86>[0]) {
  const emulator = new V86(options);
  // prepare-state (dropping caches, zeroing free memory) is the slow request: minutes on a busy machine.
  const control = attachGuestControl(emulator, { timers: systemTimers, answerWithinMs: 300_000 });
  let text = "";
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  emulator.add_listener("serial0-output-byte", (byte: number) => {
    text += String.fromCharCode(byte);
    for (const w of waiters.splice(0)) (w.test() ? w.resolve : () => waiters.push(w))();
  });
  const until = (what: string, test: () => boolean, timeoutMs: number) =>
    new Promise<void>((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; console:\n${text.slice(-2000)}`)),
        timeoutMs,
      );
      const done = () => {
        clearTimeout(timer);
        resolvePromise();
      };
      if (test()) done();
      else waiters.push({ test, resolve: done });
    });
  const event = (name: "emulator-loaded" | "emulator-ready") => new Promise<void>((r) => emulator.add_listener(name, () => r()));
  const exists = (path: string) => ((emulator as unknown as { fs9p: Fs9p }).fs9p.SearchPath(path).id ?? -1) >= 0;
  return { emulator, text: () => text, until, event, exists, control };
}

async function main() {
  const files = Object.fromEntries(Object.entries(IMAGE_FILES).map(([k, name]) => [k, read(name)])) as unknown as BootFiles;
  const image = Object.fromEntries(Object.values(IMAGE_FILES).map((name) => [name, sha256(new Uint8Array(read(name)))]));
  const machine = machineRecord();
  const recordPath = join(dir, "state.json");
  if (args.includes("--if-stale") && existsSync(recordPath) && existsSync(join(dir, STATE))) {
    const old = JSON.parse(readFileSync(recordPath, "utf8")) as { image?: unknown; machine?: unknown };
    if (JSON.stringify(old.image) === JSON.stringify(image) && JSON.stringify(old.machine) === JSON.stringify(machine)) {
      log(`${STATE}: up to date (made from these image files on this machine)`);
      return;
    }
  }

  // 1. Boot to the shell, held before its first prompt; prepare; save.
  const t0 = Date.now();
  const boot = start({ wasm_path: wasmPath, ...machineOptions(files) });
  await boot.event("emulator-loaded");
  await boot.emulator.create_file("/hold", new TextEncoder().encode("the build saves the state here\n"));
  await boot.until("the shell to hold before its first prompt", () => boot.text().includes(HOLDING), 600_000);
  const bootMs = Date.now() - t0;
  log(await boot.control.request("prepare-state"));
  // The shipped share is empty: the page writes what it needs into it (tls/ca.pem).
  // (v86's SearchPath leaves `name` unset, so DeleteNode cannot be used: unlink from the root, inode 0.)
  (boot.emulator as unknown as { fs9p: Fs9p }).fs9p.Unlink(0, "hold");
  if (boot.exists("/hold")) throw new Error("could not remove hold from the share");
  await sleep(1000); // the guest settles: tab-control back in its read, the shell in its `read`
  await boot.emulator.stop();
  const raw = new Uint8Array(await boot.emulator.save_state());
  await boot.emulator.destroy();
  log(`booted to the shell in ${(bootMs / 1000).toFixed(1)} s; raw state ${raw.byteLength} bytes`);

  const rawPath = join(work, "state.bin");
  writeFileSync(rawPath, raw);
  const level = process.env.ZSTD_LEVEL ?? "19";
  // A window that spans the whole state: the same bytes recur megabytes apart in it (a file in
  // the rootfs and a stale or mapped copy of it elsewhere), beyond -19's own 8 MiB window
  // (measured on the earlier state: 6.49 MB with -19, 4.56 MB with a 32 MiB window). v86
  // restores with zstd's own decoder (in v86.wasm, ZSTD_createDStream), whose default limit is
  // a 2^27-byte window; the decoder allocates at most the state's size for it.
  const windowLog = Math.min(27, Math.max(20, Math.ceil(Math.log2(raw.byteLength))));
  const z = spawnSync("zstd", ["-q", "-f", `-${level}`, `--long=${windowLog}`, "-T0", rawPath, "-o", `${rawPath}.zst`], {
    stdio: "inherit",
  });
  if (z.status !== 0) throw new Error(`zstd failed (${z.status})`);
  const packed = readFileSync(`${rawPath}.zst`);
  log(`zstd -${level} --long=${windowLog}: ${packed.byteLength} bytes`);

  // 2. Restore it as the page does (no image files, only the state) and check it is usable and freshens.
  const t1 = Date.now();
  const restored = start({
    wasm_path: wasmPath,
    ...machineOptions(null),
    initial_state: { buffer: packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.byteLength) as ArrayBuffer },
  });
  await restored.event("emulator-ready");
  await freshen(restored.control);
  restored.emulator.serial0_send("\r");
  await restored.until("the restored guest's fresh prompt", () => restored.text().includes(PROMPT_END), 120_000);
  const restoreMs = Date.now() - t1;
  const mark = restored.text().length;
  restored.emulator.serial0_send("echo state-$((6*7)) $(date +%s)\r");
  await restored.until("the restored guest's answer", () => /state-42 \d+/.test(restored.text().slice(mark)), 120_000);
  const guestClock = Number(/state-42 (\d+)/.exec(restored.text().slice(mark))?.[1]);
  await restored.emulator.destroy();
  if (Math.abs(guestClock - Date.now() / 1000) > 120)
    throw new Error(`the restored guest's clock is ${guestClock}, not now (${Date.now() / 1000})`);
  log(`restored and answered in ${(restoreMs / 1000).toFixed(1)} s; the guest's clock is current`);

  writeFileSync(join(dir, STATE), packed);
  const record = {
    file: STATE,
    bytes: packed.byteLength,
    raw_bytes: raw.byteLength,
    zstd_level: Number(level),
    zstd_window_log: windowLog,
    saved_at: "the shell held before its first prompt (/etc/profile), after tab-prepare-state dropped caches and zeroed free memory",
    image,
    machine,
    v86: (JSON.parse(readFileSync(join(root, "node_modules/v86/package.json"), "utf8")) as { version: string }).version,
    boot_to_prompt_ms: bootMs,
  };
  writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
  log(`wrote ${join(dir, STATE)} (${packed.byteLength} bytes) and state.json`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`[make-guest-state] ${(error as Error).message}`);
    process.exit(1);
  },
);
