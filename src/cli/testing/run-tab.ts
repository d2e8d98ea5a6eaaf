import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

/** This repository's root: where `bin/tab.mjs` is. */
export const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");

export interface TabRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real binary, `node bin/tab.mjs ARGS…`, from the repository's root, as a user would:
 * its exit code and both streams, a non-zero exit given back rather than thrown.
 */
export async function runTab(...args: string[]): Promise<TabRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, "bin", "tab.mjs"), ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
