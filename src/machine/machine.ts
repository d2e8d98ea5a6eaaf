import type { V86Options } from "v86";

/**
 * The emulated machine the guest runs on, in one place: the page boots and restores with it,
 * and the build (scripts/make-guest-state.ts) boots with it to save the shipped state. A state
 * restores only on the machine it was saved on, so these must not drift: the build records
 * `machineRecord()` next to the state (vendor/guest/state.json) and the page restores a shipped
 * state only when the record equals its own.
 */

/**
 * Guest RAM. v86 loads the initrd at 64 MiB, so it must exceed 64 MiB plus the compressed
 * initramfs (9 MB); the kernel then unpacks it into ~26 MB of rootfs. 96 MiB leaves ~55 MiB
 * free at the prompt: the demos and an agent (curl, llrun) use a fraction of it.
 */
export const GUEST_MEMORY_MIB = 96;
/**
 * `init_on_alloc=1`: the kernel zeroes every page it hands out, so memory taken at boot and never
 * written (the network card's receive buffers, 2-3 MB carved from pages the initramfs
 * decompressor had just freed) holds zeros rather than stale copies of the initramfs, and the
 * shipped state (which stores only non-zero pages) leaves it out (guest/README.md).
 */
export const GUEST_CMDLINE = "console=ttyS0 quiet tsc=reliable random.trust_cpu=on init_on_alloc=1";
const VGA_MEMORY = 2 * 1024 * 1024;
/**
 * The guest's gateway: the page's network peer (src/net's DEFAULT_NETWORK_CONFIG), whose MAC the
 * guest's /init sets for good, and so v86's own router when it stands in (machine.test.ts holds
 * the three together).
 */
export const GATEWAY = { ip: "10.0.2.2", mac: "52:54:00:00:02:02" } as const;

/** The guest files a cold boot needs (the bytes as verified against SHA256SUMS). */
export interface BootFiles {
  bios: ArrayBuffer;
  vgaBios: ArrayBuffer;
  bzImage: ArrayBuffer;
  /** The initramfs as shipped (zstd): the kernel unpacks it itself (RD_ZSTD). */
  initrd: ArrayBuffer;
}

export interface MachineChoice {
  /** v86's own network backend (e.g. "fetch") instead of the page's peer on the bus. */
  relayUrl?: string;
}

/** What a saved state depends on, as recorded beside the shipped state. */
export function machineRecord() {
  return {
    memory_size: GUEST_MEMORY_MIB * 1024 * 1024,
    vga_memory_size: VGA_MEMORY,
    cmdline: GUEST_CMDLINE,
    net_device: "virtio",
    filesystem: "9p",
    /** The second serial port: the guest's control line (./guest-control.ts). */
    control_port: "uart1",
    /** v86's ACPI, which brings the CPU's local APIC: its timer is the guest's clock event (below). */
    apic: "acpi",
  };
}

/**
 * The v86 options for the guest machine, without `wasm_path` (the host knows where v86's wasm
 * is). With `files` the machine boots them; without, it is to be given an `initial_state`
 * (a saved state holds all of memory, BIOS and kernel included).
 */
export function machineOptions(files: BootFiles | null, choice: MachineChoice = {}): Omit<V86Options, "wasm_path"> {
  const record = machineRecord();
  if (files && record.memory_size <= 64 * 1024 * 1024 + files.initrd.byteLength)
    throw new Error(
      `memory ${record.memory_size} bytes is too small: v86 loads the initrd at 64 MiB and it is ${files.initrd.byteLength} bytes`,
    );
  return {
    memory_size: record.memory_size,
    vga_memory_size: record.vga_memory_size,
    ...(files
      ? {
          bios: { buffer: files.bios },
          vga_bios: { buffer: files.vgaBios },
          bzimage: { buffer: files.bzImage },
          initrd: { buffer: files.initrd },
        }
      : {}),
    cmdline: record.cmdline,
    autostart: true,
    disable_keyboard: true,
    disable_mouse: true,
    disable_speaker: true,
    // ttyS1, where the guest's tab-control listens (./guest-control.ts).
    uart1: true,
    // v86 gives the CPU a local APIC only with ACPI. The guest kernel (X86_UP_APIC) then takes the
    // APIC's timer as its clock event: an idle guest wakes ~2 times a second, where the PIT's
    // one-shot reach of 27.5 ms woke it ~36 times (docs/decisions/0031).
    acpi: true,
    // With v86's own backend, its virtual router takes the addresses the guest is built with
    // (static 10.0.2.15/24 via 10.0.2.2, and the gateway's MAC /init sets for good), so ARP,
    // DNS and DHCP answers agree with the guest.
    net_device: {
      type: "virtio",
      ...(choice.relayUrl
        ? {
            relay_url: choice.relayUrl,
            router_ip: GATEWAY.ip,
            router_mac: GATEWAY.mac,
            vm_ip: "10.0.2.15",
          }
        : {}),
    },
    filesystem: {},
    preserve_mac_from_state_image: true,
  };
}
