import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_NETWORK_CONFIG } from "../net";
import { GATEWAY, machineOptions, machineRecord } from "./machine";

describe("the guest machine", () => {
  it("the guest's /init knows the page's MAC for the gateway, the one the page's peer and v86's own router use", () => {
    const init = readFileSync(new URL("../../guest/rootfs/init", import.meta.url), "utf8");
    const set = /^\s*arp -s (\S+) (\S+)$/m.exec(init);
    expect(set?.slice(1)).toEqual([DEFAULT_NETWORK_CONFIG.peerIp, DEFAULT_NETWORK_CONFIG.peerMac]);
    expect(GATEWAY).toEqual({ ip: DEFAULT_NETWORK_CONFIG.peerIp, mac: DEFAULT_NETWORK_CONFIG.peerMac });
    const net = machineOptions(null, { relayUrl: "fetch" }).net_device as { router_mac?: string; router_ip?: string };
    expect([net.router_ip, net.router_mac]).toEqual([DEFAULT_NETWORK_CONFIG.peerIp, DEFAULT_NETWORK_CONFIG.peerMac]);
  });

  it("has the second serial port the guest's control line listens on, and records it beside a saved state", () => {
    expect(machineOptions(null).uart1).toBe(true);
    expect(machineRecord().control_port).toBe("uart1");
  });

  it("has a local APIC (v86's ACPI) for the guest's clock event, and a state records it", () => {
    expect(machineOptions(null).acpi).toBe(true);
    expect(machineRecord().apic).toBe("acpi");
  });
});
