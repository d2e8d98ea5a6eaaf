/**
 * Debian's packages, installed by `npm test`'s own steps (scripts/ensure-tools.ts,
 * scripts/ensure-browsers.ts) when a newcomer's machine lacks what a test needs: only as root
 * with apt, one `apt-get install` for everything missing, after an `apt-get update` when apt
 * has no package lists (or once more when the first try fails on stale ones).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

export function run(who: string, command: string, args: string[]): boolean {
  console.log(`${who}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return result.status === 0;
}

export const canAptInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");

function aptListsEmpty(): boolean {
  try {
    return !readdirSync("/var/lib/apt/lists").some((f) => f.includes("_Packages"));
  } catch {
    return true;
  }
}

export function aptInstall(who: string, packages: readonly string[]): void {
  if (!canAptInstall || packages.length === 0) return;
  if (aptListsEmpty()) run(who, "apt-get", ["update"]);
  if (run(who, "apt-get", ["install", "-y", ...packages])) return;
  // A package list older than the mirror names files that are gone: refresh it once and retry.
  run(who, "apt-get", ["update"]);
  run(who, "apt-get", ["install", "-y", ...packages]);
}
