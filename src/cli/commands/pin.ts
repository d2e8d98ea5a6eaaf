import type { Command } from "../main";

// Placeholder until the pin command lands (see the issue that owns it).
export const command: Command = {
  summary: "pin: not built yet",
  usage: "npx tab pin",
  async run() {
    process.stderr.write("tab pin: not built yet\n");
    return 2;
  },
};
