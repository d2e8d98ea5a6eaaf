/**
 * `npm test` runs this before the unit tests: it finds the command-line tools the tests call
 * (curl and openssl, as a user of the CLI would; nginx, for the relay's reverse-proxy recipe
 * in docs/relay.md) or installs them, and prints which it found. A newcomer's `npm install &&
 * npm test` then needs nothing installed by hand, and CI (`.ci/run`) installs nothing itself.
 *
 * As root with apt, what is missing is installed from Debian's packages (scripts/apt.ts).
 * Otherwise curl and openssl must be there (one line names the command to run, exit 1); nginx
 * may be absent: its two tests then skip saying why, except under CI, where they must run.
 */
import { spawnSync } from "node:child_process";
import { aptInstall } from "./apt";

interface Tool {
  name: string;
  /** How to ask it for its version (it is there when this exits 0). */
  probe: string[];
  debianPackage: string;
  /** Tests skip without it (outside CI) rather than fail. */
  optional?: string;
}

const TOOLS: Tool[] = [
  { name: "curl", probe: ["curl", "--version"], debianPackage: "curl" },
  { name: "openssl", probe: ["openssl", "version"], debianPackage: "openssl" },
  {
    name: "nginx",
    // Debian puts it in /usr/sbin, which a user's PATH may lack.
    probe: ["/usr/sbin/nginx", "-v"],
    debianPackage: "nginx",
    optional: "the relay's nginx recipe (src/cli/relay/nginx.test.ts, e2e/relay-deployment.spec.ts) is skipped",
  },
];

const present = (tool: Tool) =>
  spawnSync(tool.probe[0]!, tool.probe.slice(1), { stdio: "ignore" }).status === 0 ||
  (tool.name === "nginx" && spawnSync("nginx", ["-v"], { stdio: "ignore" }).status === 0);

aptInstall(
  "ensure-tools",
  TOOLS.filter((t) => !present(t)).map((t) => t.debianPackage),
);

let failed = 0;
for (const tool of TOOLS) {
  if (present(tool)) console.log(`ensure-tools: ${tool.name}: found`);
  else if (tool.optional && !process.env.CI)
    console.log(
      `ensure-tools: ${tool.name}: not found and not installable here (apt-get install -y ${tool.debianPackage}); ${tool.optional}`,
    );
  else {
    failed++;
    console.error(`ensure-tools: no ${tool.name} found or installable here; run: sudo apt-get install -y ${tool.debianPackage}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
