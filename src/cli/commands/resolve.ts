import type { Command } from "../main";

// Placeholder until the resolve command lands (see the issue that owns it).
export const command: Command = {
  summary: "resolve: not built yet",
  usage: "npx tab resolve",
  async run() {
    process.stderr.write("tab resolve: not built yet\n");
    return 2;
  },
};
