import { resolve as resolvePath } from "node:path";
import { DEFAULT_LIMITS, pinOfLocal } from "../../resolver";
import { createFsLocalFiles } from "../../resolver/fs-local-files.node.js";
import { readCommandLineOrReason } from "../args";
import type { Command } from "../command";

export const command: Command = {
  summary: "pin: print the sha256 a reference to a file or directory must carry",
  usage: `npx tab pin PATH

  prints the lowercase hex sha256 to put after #sha256= : of the bytes for a file, and for a
  directory the tree hash (sha256 of the sorted "relative/path:<sha256>" lines, each ending in \\n).
  Symlinks and special files are refused.`,
  async run(args) {
    const got = readCommandLineOrReason({ args, options: {}, allowPositionals: true });
    const path = got.ok && got.read.positionals.length === 1 ? got.read.positionals[0] : undefined;
    if (path === undefined) {
      const reason = got.ok ? `expected one PATH, got ${got.read.positionals.length}` : got.reason;
      process.stderr.write(`tab pin: ${reason}\nusage: npx tab pin PATH\n`);
      return 64;
    }
    const result = await pinOfLocal(createFsLocalFiles(), resolvePath(path), DEFAULT_LIMITS);
    if (!result.ok) {
      process.stderr.write(`tab pin: ${result.verdict.code}: ${result.verdict.reason}\n`);
      return 1;
    }
    process.stdout.write(`${result.sha256}\n`);
    return 0;
  },
};
