import { describe, expect, it } from "vitest";
import { machineRecord } from "../../machine";
import { snapshotKey } from "./snapshots";

const image = { bzImage: "9c480f3a7bf2f3b2abc822b4976b1311", "initramfs.cpio.zst": "52c96feccc28e796", "seabios.bin": "7ba476745bd8d32d" };

describe("the key a saved guest state is kept under", () => {
  it("is the same for the same image on the same machine", () => {
    expect(snapshotKey(image, machineRecord())).toBe(snapshotKey({ ...image }, { ...machineRecord() }));
  });

  it("differs for another machine (memory, devices, cmdline), so a state saved on it is never restored here", () => {
    const here = snapshotKey(image, machineRecord());
    const { apic: _apic, ...withoutAcpi } = machineRecord();
    expect(snapshotKey(image, withoutAcpi)).not.toBe(here);
    expect(snapshotKey(image, { ...machineRecord(), memory_size: 128 * 1024 * 1024 })).not.toBe(here);
    expect(snapshotKey(image, { ...machineRecord(), cmdline: `${machineRecord().cmdline} debug` })).not.toBe(here);
  });

  it("differs for another image", () => {
    expect(snapshotKey({ ...image, bzImage: "0000000000000000" }, machineRecord())).not.toBe(snapshotKey(image, machineRecord()));
  });
});
