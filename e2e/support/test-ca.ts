import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway CA and server certificates made with openssl at test time, for a local HTTPS
 * upstream the page's TLS client must verify. Nothing is kept: the keys live for one run.
 */
export interface TestCa {
  certPem: string;
  /** A certificate (and key) for `names`, signed by this CA. */
  issue(names: string[]): { certPem: string; keyPem: string };
}

export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "tab-test-ca-"));
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  try {
    run(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=tab test CA"]);
    const certPem = readFileSync(join(dir, "ca.pem"), "utf8");
    const caKey = readFileSync(join(dir, "ca.key"), "utf8");
    let serial = 0;
    return {
      certPem,
      issue(names) {
        const sub = mkdtempSync(join(tmpdir(), "tab-test-cert-"));
        const runIn = (args: string[]) => execFileSync("openssl", args, { cwd: sub, stdio: ["ignore", "ignore", "pipe"] });
        try {
          writeFileSync(join(sub, "ca.pem"), certPem);
          writeFileSync(join(sub, "ca.key"), caKey);
          writeFileSync(
            join(sub, "ext"),
            `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
          );
          runIn(["req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${names[0]}`]);
          runIn([
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-set_serial",
            String(++serial + 1000),
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "ext",
          ]);
          return { certPem: readFileSync(join(sub, "leaf.pem"), "utf8"), keyPem: readFileSync(join(sub, "leaf.key"), "utf8") };
        } finally {
          rmSync(sub, { recursive: true, force: true });
        }
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
