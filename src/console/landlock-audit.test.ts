import { describe, expect, it } from "vitest";
import { NewEvent } from "../log";
import { auditFields, createLandlockAuditReader, LANDLOCK_ACCESS, LANDLOCK_DOMAIN } from "./landlock-audit";

// Records as the guest's tab-control hands them on (guest/src/tab-audit.c): the kernel's text,
// the SYSCALL record's pid, comm and exe appended to the access record.
const DOMAIN =
  'audit(1765000000.120:41): domain=1a2b3c4d5 status=allocated mode=enforcing pid=88 uid=0 exe="/usr/bin/tab-tools" comm="llrun"';
const WRITE =
  'audit(1765000000.120:41): domain=1a2b3c4d5 blockers=fs.make_reg path="/root" dev="rootfs" ino=12 pid=88 comm="sh" exe="/usr/bin/busybox"';
const CONNECT = "audit(1765000001.500:52): domain=77 blockers=net.connect_tcp daddr=93.184.216.34 dest=443";

describe("the kernel's Landlock audit records", () => {
  it("turn a filesystem denial into one kernel decision naming the right, the path, the process and the domain", () => {
    const reader = createLandlockAuditReader();
    expect(reader.read(LANDLOCK_DOMAIN, DOMAIN)).toBeNull();
    const decision = reader.read(LANDLOCK_ACCESS, WRITE);
    expect(NewEvent.parse(decision)).toEqual({
      kind: "kernel.decision",
      allowed: false,
      code: "landlock-denied",
      by: "kernel",
      reason: "Landlock domain 1a2b3c4d5 does not allow fs.make_reg on /root",
      access: ["fs.make_reg"],
      target: "/root",
      path: "/root",
      program: "/usr/bin/busybox",
      pid: 88,
      domain: "1a2b3c4d5",
      domainProgram: "/usr/bin/tab-tools",
      record: WRITE,
    });
  });

  it("name the address and port of a refused connect()", () => {
    const decision = createLandlockAuditReader().read(LANDLOCK_ACCESS, CONNECT);
    expect(decision).toMatchObject({ access: ["net.connect_tcp"], target: "93.184.216.34:443", port: 443, address: "93.184.216.34" });
  });

  it("name the domain's creator for a later denial that came without a SYSCALL record", () => {
    const reader = createLandlockAuditReader();
    reader.read(
      LANDLOCK_DOMAIN,
      'audit(1.0:1): domain=77 status=allocated mode=enforcing pid=90 uid=0 exe="/usr/bin/tab-tools" comm="tcpconnect"',
    );
    expect(reader.read(LANDLOCK_ACCESS, CONNECT)).toMatchObject({ program: "/usr/bin/tab-tools", pid: 90, domain: "77" });
    reader.read(LANDLOCK_DOMAIN, "audit(2.0:9): domain=77 status=deallocated denials=1");
    expect(reader.read(LANDLOCK_ACCESS, CONNECT)).toMatchObject({ program: "", pid: null });
  });

  it("read a path the kernel wrote in hex (it had a space or a quote) as its text", () => {
    expect(auditFields('x: path=2F746D702F6120622F dev="tmpfs"').get("path")).toBe("/tmp/a b/");
  });

  it("give no decision for a record of another type", () => {
    expect(createLandlockAuditReader().read(1300, "audit(1.0:1): arch=40000003 syscall=5 pid=3")).toBeNull();
  });
});
