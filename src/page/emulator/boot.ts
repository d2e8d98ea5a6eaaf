import { V86 } from "v86";
import wasmUrl from "v86/build/v86.wasm?url";
import type { EventLog } from "../../log";
import { type ConsoleDriver, createConsoleDriver } from "../console/console-driver";
import { GuestConsole } from "./console";
import type { GuestImages } from "./images";

/** The two bus methods the page uses (v86 keeps `bus` off its public types). */
export interface V86Bus {
  register(name: string, fn: (data: Uint8Array) => void, thisValue?: unknown): void;
  send(name: string, data: Uint8Array): void;
}

export interface Guest {
  emulator: V86;
  bus: V86Bus;
  console: GuestConsole;
  /** The one way the page types commands (scenarios, runs, replays, the tour, the tests). */
  driver: ConsoleDriver;
  /** Resolves when the guest's shell shows its first prompt (a booted guest) or the emulator runs (a restored one, whose console still has to ask for a fresh prompt). */
  ready: Promise<void>;
  saveState(): Promise<ArrayBuffer>;
  /** Writes a file into the 9p share the guest mounts at /mnt/tab. */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  destroy(): Promise<void>;
}

export interface BootOptions {
  images: GuestImages;
  log: EventLog;
  /** A saved state to start from instead of booting. */
  state?: ArrayBuffer;
  /** Extra initrd bytes appended to the image (a cpio archive), e.g. the session CA. */
  initrdAppendix?: Uint8Array;
  memoryMiB?: number;
  /** v86's own network backend (e.g. "fetch"), instead of the page's peer on the bus. */
  relayUrl?: string;
  /** Where serial output goes (the terminal): the guest's text with its OSC 133 marks. */
  onOutput(text: string): void;
}

function concatInitrd(initrd: ArrayBuffer, appendix?: Uint8Array): ArrayBuffer {
  if (!appendix || appendix.length === 0) return initrd;
  // Linux reads concatenated cpio archives as one initramfs; each starts 4-byte aligned.
  const base = new Uint8Array(initrd);
  const padded = (base.length + 3) & ~3;
  const out = new Uint8Array(padded + appendix.length);
  out.set(base);
  out.set(appendix, padded);
  return out.buffer;
}

/**
 * Starts v86 with the verified guest image: boots it, or restores a saved state. Serial
 * output is batched per animation frame, because v86 reports it one byte at a time.
 */
export function bootGuest(options: BootOptions): Guest {
  const { images, log } = options;
  const memory = (options.memoryMiB ?? 160) * 1024 * 1024;
  const initrd = concatInitrd(images.initrd, options.initrdAppendix);
  if (memory <= 64 * 1024 * 1024 + initrd.byteLength)
    throw new Error(`memory ${memory} bytes is too small: v86 loads the initrd at 64 MiB and it is ${initrd.byteLength} bytes`);

  log.append({ kind: "boot.progress", phase: "start", message: options.state ? "restoring a saved guest state" : "booting Linux" });
  const emulator = new V86({
    wasm_path: wasmUrl,
    memory_size: memory,
    vga_memory_size: 2 * 1024 * 1024,
    bios: { buffer: images.bios },
    vga_bios: { buffer: images.vgaBios },
    bzimage: { buffer: images.bzImage },
    initrd: { buffer: initrd },
    cmdline: "console=ttyS0 quiet tsc=reliable random.trust_cpu=on",
    autostart: true,
    disable_keyboard: true,
    disable_mouse: true,
    disable_speaker: true,
    // With v86's own backend, its virtual router takes the addresses the guest is built with
    // (static 10.0.2.15/24 via 10.0.2.2), so ARP, DNS and DHCP answers agree with the guest.
    net_device: {
      type: "virtio",
      ...(options.relayUrl ? { relay_url: options.relayUrl, router_ip: "10.0.2.2", vm_ip: "10.0.2.15" } : {}),
    },
    filesystem: {},
    preserve_mac_from_state_image: true,
    ...(options.state ? { initial_state: { buffer: options.state } } : {}),
  });
  const bus = (emulator as unknown as { bus: V86Bus }).bus;
  const guestConsole = new GuestConsole((text) => emulator.serial0_send(text));

  let pending: number[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const bytes = Uint8Array.from(pending);
    pending = [];
    guestConsole.receive(bytes);
  };
  guestConsole.onOutput(options.onOutput);
  emulator.add_listener("serial0-output-byte", (byte: number) => {
    pending.push(byte);
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 4);
    }
  });

  const started = performance.now();
  const ready = (
    options.state
      ? new Promise<void>((resolve) => emulator.add_listener("emulator-ready", () => resolve()))
      : // Ready at the first prompt's marks (guest/rootfs/etc/profile), not at anything printed.
        guestConsole.firstPrompt
  ).then(() => {
    log.append({
      kind: "boot.progress",
      phase: options.state ? "snapshot-restore" : "ready",
      message: `${options.state ? "restored" : "booted"} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    });
  });

  return {
    emulator,
    bus,
    console: guestConsole,
    driver: createConsoleDriver(guestConsole),
    ready,
    saveState: () => emulator.save_state(),
    writeFile: (path, bytes) => emulator.create_file(path, bytes),
    destroy: () => emulator.destroy(),
  };
}
