import { resolve as resolvePath } from "node:path";
import { DEFAULT_LIMITS, pinOfLocal } from "../../resolver";
import { createFsLocalFiles } from "../../resolver/fs-local-files.node.js";
import { parseCommandLine, UsageError } from "../args";
import type { Command } from "../command";

export const command: Command = {
  summary: "pin: print the sha256 a reference to a file or directory must carry",
  usage: `npx tab pin PATH

  prints the lowercase hex sha256 to put after #sha256= : of the bytes for a file, and for a
  directory the tree hash (sha256 of the sorted "relative/path:<sha256>" lines, each ending in \\n).
  Symlinks and special files are refused.`,
  async run(args) {
    let path: string;
    try {
      const { positionals } = parseCommandLine({ args, options: {}, allowPositionals: true });
      if (positionals.length !== 1) throw new UsageError(`expected one PATH, got ${positionals.length}`);
      path = positionals[0]!;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`tab pin: ${error.message}\nusage: npx tab pin PATH\n`);
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
