/** One `npx tab <name>` command: what `--help` prints, and what running it does (the exit code). */
export interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}
