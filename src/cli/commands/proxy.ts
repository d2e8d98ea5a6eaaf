import type { Command } from "../main";

// Placeholder until the proxy command lands (see the issue that owns it).
export const command: Command = {
  summary: "proxy: not built yet",
  usage: "npx tab proxy",
  async run() {
    process.stderr.write("tab proxy: not built yet\n");
    return 2;
  },
};
