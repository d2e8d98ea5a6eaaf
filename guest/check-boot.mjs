#!/usr/bin/env node
// guest/check-boot.mjs: developer tool. Boots vendor/guest/ in v86 under Node and checks
// that the guest image does what guest/README.md promises. Not part of the page.
//
//   node guest/check-boot.mjs [--v86 PATH] [--zst] [--state FILE] [--quiet]
//
//   --v86 PATH   v86's libv86.mjs (or the v86 package directory); default: env V86_MODULE,
//                else import("v86") from the repository.
//   --raw FILE   boot this uncompressed cpio as a buffer (e.g. guest/.build/initramfs.cpio)
//                instead of vendor/guest/initramfs.cpio.zst by URL (v86 decompresses that)
//   --state FILE after the checks, write emulator.save_state() to FILE
//   --cmdline S  kernel command line (default: manifest.json's)
//   --quiet      do not echo the guest console
//
// A tiny ARP responder answers for 10.0.2.2 so that the guest's TCP SYNs become visible
// on "net0-send"; nothing ever answers the SYNs themselves.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = resolve(here, "../vendor/guest");
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quiet = args.includes("--quiet");
const raw = opt("--raw");
const manifest = JSON.parse(readFileSync(join(vendor, "manifest.json"), "utf8"));

async function loadV86() {
  let spec = opt("--v86") ?? process.env.V86_MODULE;
  let modUrl;
  if (spec) {
    spec = resolve(spec);
    if (statSync(spec).isDirectory()) spec = join(spec, "build/libv86.mjs");
    modUrl = pathToFileURL(spec).href;
  } else {
    modUrl = import.meta.resolve("v86");
  }
  const mod = await import(modUrl);
  const wasm_path = join(dirname(fileURLToPath(modUrl)), "v86.wasm");
  return { V86: mod.V86 ?? mod.default?.V86 ?? mod.default, wasm_path };
}

const { V86, wasm_path } = await loadV86();
const buf = (f) => {
  const b = readFileSync(join(vendor, f));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
};

let initrd;
if (raw) {
  const b = readFileSync(raw);
  initrd = { buffer: b.buffer.slice(b.byteOffset, b.byteOffset + b.length) };
} else {
  // v86 0.5.462 decompresses a URL ending in .zst itself; it needs the uncompressed size
  initrd = { url: join(vendor, manifest.initrd.file), size: manifest.initrd.size };
}

const t0 = Date.now();
const emulator = new V86({
  wasm_path,
  bios: { buffer: buf("seabios.bin") },
  vga_bios: { buffer: buf("vgabios.bin") },
  bzimage: { buffer: buf("bzImage") },
  initrd,
  cmdline: opt("--cmdline") ?? manifest.cmdline,
  memory_size: manifest.memory_size,
  vga_memory_size: 2 * 1024 * 1024,
  net_device: { type: "virtio" },
  uart1: true,
  // the page's machine has v86's ACPI, hence a local APIC, whose timer the kernel takes (src/machine/machine.ts)
  acpi: true,
  filesystem: {},
  autostart: true,
  disable_keyboard: true,
  disable_mouse: true,
  disable_speaker: true,
});

// ---- console
let out = "";
let tFirstByte = 0;
emulator.add_listener("emulator-ready", () => console.error(`[info] emulator ready after ${Date.now() - t0} ms`));
emulator.add_listener("serial0-output-byte", (b) => {
  if (!tFirstByte) tFirstByte = Date.now();
  const c = String.fromCharCode(b);
  out += c;
  if (!quiet) process.stdout.write(c);
});
// The control line (ttyS1, guest/src/tab-control.c): the kernel's Landlock audit records come as `audit TYPE TEXT`.
let control = "";
emulator.add_listener("serial1-output-byte", (b) => {
  control += String.fromCharCode(b);
});
const auditLines = () => control.split("\n").filter((l) => l.startsWith("audit "));
// OSC 133 marks from the prompt (guest/rootfs/etc/profile): D;<status> ends a command, A
// starts the prompt, B ends it. They say when a command ended and with what status.
const clean = (s) =>
  s
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\r/g, "");
function waitFor(re, ms, from = 0, raw = false) {
  return new Promise((res, rej) => {
    const start = Date.now();
    const tick = () => {
      const text = out.slice(from);
      const m = (raw ? text : clean(text)).match(re);
      if (m) return res(m);
      if (Date.now() - start > ms) return rej(new Error(`timeout waiting for ${re}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}
const PROMPT_END = /\x1b\]133;B\x07/;
const COMMAND_END = /\x1b\]133;D;(\d+)(?:;[^\x07]*)?\x07/;
/** The command's output: after its echoed line (which the line editor may wrap), before the D mark. */
function outputOf(text, cmd) {
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n" && seen >= cmd.length) return text.slice(i + 1);
    if (text[i] >= " ") seen++;
  }
  return "";
}
async function run(cmd, ms = 30000) {
  const from = out.length;
  emulator.serial0_send(`${cmd}\r`);
  const m = await waitFor(COMMAND_END, ms, from, true);
  const end = from + m.index;
  // The next prompt is drawn before anything else is typed.
  await waitFor(PROMPT_END, ms, end, true);
  return { out: outputOf(clean(out.slice(from, end)), cmd).trim(), rc: Number(m[1]) };
}

// ---- network: ARP responder for 10.0.2.2, frame log
const frames = [];
const PAGE_MAC = [0x52, 0x54, 0x00, 0x12, 0x35, 0x02];
emulator.add_listener("net0-send", (data) => {
  const f = new Uint8Array(data);
  const type = (f[12] << 8) | f[13];
  if (type === 0x0806 && f[21] === 1 && f.slice(38, 42).join(".") === "10.0.2.2") {
    const r = new Uint8Array(42);
    r.set(f.slice(6, 12), 0);
    r.set(PAGE_MAC, 6);
    r[12] = 8;
    r[13] = 6;
    r.set([0, 1, 8, 0, 6, 4, 0, 2], 14);
    r.set(PAGE_MAC, 22);
    r.set([10, 0, 2, 2], 28);
    r.set(f.slice(22, 28), 32);
    r.set(f.slice(28, 32), 38);
    emulator.bus.send("net0-receive", r);
    frames.push({ kind: "arp" });
    return;
  }
  if (type !== 0x0800) return;
  const ihl = (f[14] & 15) * 4,
    proto = f[23],
    dst = f.slice(30, 34).join(".");
  const l4 = 14 + ihl,
    dport = (f[l4 + 2] << 8) | f[l4 + 3];
  if (proto === 6 && f[l4 + 13] & 0x02) frames.push({ kind: "syn", dst, dport });
  else if (proto === 17) frames.push({ kind: "udp", dst, dport });
  else frames.push({ kind: `ip${proto}`, dst });
});
const count = (pred, from) => frames.slice(from).filter(pred).length;

// ---- checks
const results = [];
function check(name, ok, detail) {
  results.push({ name, ok, detail });
  console.error(`\n[check] ${ok ? "PASS" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
}

try {
  await waitFor(/Linux in a tab: /, 120000);
  const tBanner = Date.now();
  // Ready at the first prompt's command-start mark (nothing printed for it).
  await waitFor(PROMPT_END, 120000, 0, true);
  const bootMs = Date.now() - t0;
  check(
    "boot to the first prompt (OSC 133;B)",
    true,
    `${(bootMs / 1000).toFixed(1)} s (first console byte ${((tFirstByte - t0) / 1000).toFixed(1)} s, /init banner ${((tBanner - t0) / 1000).toFixed(1)} s)`,
  );

  let r = await run("uname -r");
  check("uname -r is 7.2.x", /^7\.2\.\d+/.test(r.out), r.out);

  r = await run("llrun --abi");
  check("llrun --abi >= 7 (audit records)", Number(r.out) >= 7, r.out);

  let f0 = frames.length;
  r = await run("llrun --connect 3128 --ro / --rw /tmp -- tcpconnect 93.184.216.34 443");
  const ruleset = r.out.split("\n").find((l) => l.startsWith("llrun: ruleset "));
  check("ruleset line", /^llrun: ruleset abi=\d+ fs_ro=\/ fs_rw=\/tmp connect=3128 bind=\* scope= dropped=$/.test(ruleset ?? ""), ruleset);
  await new Promise((res) => setTimeout(res, 500));
  check(
    "  ...and the kernel's audit record of it came on the control line (net.connect_tcp, port 443)",
    auditLines().some((l) => /^audit 1423 .*blockers=net\.connect_tcp daddr=93\.184\.216\.34 dest=443/.test(l)),
    auditLines().at(-1),
  );
  check(
    "llrun --connect 3128: tcpconnect to 93.184.216.34:443 is EACCES",
    /tcpconnect: dst=93\.184\.216\.34:443 result=EACCES errno=13/.test(r.out) && r.rc === 1,
    r.out.split("\n").pop(),
  );
  check("  ...and no SYN left the guest", count((x) => x.kind === "syn" && x.dst === "93.184.216.34", f0) === 0);

  f0 = frames.length;
  r = await run("tcpconnect 93.184.216.34 443");
  check("tcpconnect without llrun is not EACCES", /result=(?!EACCES)\w+/.test(r.out) && r.rc === 1, r.out);
  check(
    "  ...and a SYN to 93.184.216.34:443 was sent",
    count((x) => x.kind === "syn" && x.dst === "93.184.216.34" && x.dport === 443, f0) > 0,
  );

  r = await run("llrun --ro / --rw /tmp -- sh -c 'echo x > /root/f'");
  const r2 = await run("test -e /root/f");
  check(
    "llrun --ro / --rw /tmp: write to /root refused",
    r.rc !== 0 && /Permission denied/.test(r.out) && r2.rc !== 0,
    r.out.split("\n").pop(),
  );
  check(
    "  ...and the kernel's audit record names fs.make_reg on /root, with the process's pid",
    auditLines().some((l) => /^audit 1423 .*blockers=fs\.make_reg path="\/root" .* pid=\d+ comm="sh"/.test(l)),
    auditLines().at(-1),
  );
  r = await run("dmesg | grep -c 'type=1423'");
  check("  ...and the records are in the guest's kernel log", Number(r.out) >= 2, r.out);
  r = await run("llrun --ro / --rw /tmp -- sh -c 'echo x > /tmp/f && cat /tmp/f'");
  check("llrun --rw /tmp: write to /tmp allowed", r.rc === 0 && /\nx$/.test(r.out));

  const t = Date.now();
  r = await run("curl --version");
  check("curl --version", r.rc === 0 && /^curl 8\./.test(r.out), `${r.out.split("\n")[0]} (${((Date.now() - t) / 1000).toFixed(1)} s)`);

  f0 = frames.length;
  r = await run("timeout 3 nslookup example.com 10.0.2.2 >/dev/null 2>&1");
  check("nslookup example.com 10.0.2.2 sends UDP/53", count((x) => x.kind === "udp" && x.dst === "10.0.2.2" && x.dport === 53, f0) > 0);

  f0 = frames.length;
  r = await run("curl -sS -m 3 https://api.github.com/zen");
  check(
    "curl https://… goes to the proxy 10.0.2.2:3128 (HTTPS_PROXY)",
    count((x) => x.kind === "syn" && x.dst === "10.0.2.2" && x.dport === 3128, f0) > 0 &&
      count((x) => x.kind === "udp" && x.dport === 53, f0) === 0,
    r.out,
  );

  r = await run("grep -c ' /mnt/tab 9p ' /proc/mounts; readlink /etc/ssl/certs/ca-certificates.crt");
  check(
    "9p share mounted at /mnt/tab, CA symlink to /mnt/tab/tls/ca.pem",
    /^1\n\/mnt\/tab\/tls\/ca\.pem$/.test(r.out),
    r.out.replace("\n", " "),
  );
  await run("mkdir -p /mnt/tab/tls");
  await emulator.create_file("/tls/ca.pem", new TextEncoder().encode("-----BEGIN CERTIFICATE-----\ntest\n"));
  r = await run("head -n1 $CURL_CA_BUNDLE");
  check("the page's /tls/ca.pem is readable through the CA path", r.out === "-----BEGIN CERTIFICATE-----", r.out);

  r = await run("unshare -Urn sh -c 'echo $(ip -o link | cut -d: -f2)'");
  check("unshare -Urn: user+net namespaces, only lo inside", r.rc === 0 && r.out.trim() === "lo", r.out);

  r = await run("cat /proc/sys/kernel/seccomp/actions_avail 2>/dev/null || grep -c Seccomp /proc/self/status");
  check("seccomp present", r.rc === 0, r.out);

  // ---- snapshot size
  const ts = Date.now();
  const state = await emulator.save_state();
  const stateMs = Date.now() - ts;
  const statePath = opt("--state") ?? "/tmp/guest-state.bin";
  writeFileSync(statePath, new Uint8Array(state));
  console.error(`[info] save_state: ${state.byteLength} bytes raw in ${stateMs} ms, written to ${statePath}`);
  console.error(`[info] boot to prompt: ${(bootMs / 1000).toFixed(1)} s`);
} catch (e) {
  check("run", false, String(e.message));
  console.error("---- console tail ----\n" + clean(out).slice(-2000));
}
emulator.destroy?.();
const failed = results.filter((r) => !r.ok);
console.error(`\n[check] ${results.length - failed.length}/${results.length} passed`);
process.exit(failed.length ? 1 : 0);
