import type { Command } from "./command";

/**
 * The Node host's command line. Each command lives in its own file under ./commands and is
 * loaded only when asked for, so `npx tab --help` stays fast.
 */

const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  proxy: () => import("./commands/proxy"),
  resolve: () => import("./commands/resolve"),
  pin: () => import("./commands/pin"),
  skills: () => import("./commands/skills"),
  relay: () => import("./commands/relay"),
  policy: () => import("./commands/policy"),
  lesson: () => import("./commands/lesson"),
};

export function helpText(): string {
  return [
    "tab: the command line of Linux in a tab (the same core as the page, on Node).",
    "",
    "usage: npx tab <command> [options]",
    "",
    "commands:",
    "  proxy     run the allowlisting egress proxy on a real socket",
    "  resolve   resolve a harness: fetch, verify pins, cache",
    "  pin       print the sha256 a reference to a file or directory must carry",
    "  skills    search a skill registry and acquire a skill from a pinned address",
    "  relay     a Wisp (TCP over WebSocket) relay for the page, to public addresses only",
    "  policy    author a policy: check a request, learn one from a log, replay a log under one",
    "  lesson    check a lesson file (lesson check), or run it headless on the shipped guest (lesson test)",
    "",
    "npx tab <command> --help   shows a command's options",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${helpText()}\n`);
    return name === undefined ? 64 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`tab: unknown command "${name}"\n\n${helpText()}\n`);
    return 64;
  }
  const { command } = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.summary}\n\nusage: ${command.usage}\n`);
    return 0;
  }
  return command.run(rest);
}
