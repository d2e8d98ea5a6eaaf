import type { Command } from "../main";

// Placeholder until the skills command lands (see the issue that owns it).
export const command: Command = {
  summary: "skills: not built yet",
  usage: "npx tab skills",
  async run() {
    process.stderr.write("tab skills: not built yet\n");
    return 2;
  },
};
