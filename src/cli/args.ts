import { type ParseArgsConfig, parseArgs } from "node:util";
import { messageOf } from "../platform";

/** A command line the command cannot take: the sentence after `tab <command>: `, then the usage; exit 64. */
export class UsageError extends Error {}

/** What node:util's parseArgs says, as one short sentence in the commands' own words. */
function wording(error: unknown): string {
  const message = messageOf(error);
  const flag = /'(--?[^' ]+)/.exec(message)?.[1];
  switch ((error as { code?: unknown }).code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${flag ?? message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/argument missing/.test(message)) return `${flag} needs a value`;
      if (/does not take an argument/.test(message)) return `${flag} takes no value`;
      return message;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? message}`;
    default:
      return message;
  }
}

/**
 * Every command's one way to read its arguments: node:util's parseArgs, strict (an unknown
 * option is an error, not ignored), its errors a UsageError with a short sentence.
 */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config); // strict unless the config says otherwise (node:util's default)
  } catch (error) {
    throw new UsageError(wording(error));
  }
}

/** `parseCommandLine`, its usage error as a value: for commands that report bad input among their other reasons. */
export function readCommandLineOrReason<T extends ParseArgsConfig>(
  config: T,
): { ok: true; read: ReturnType<typeof parseArgs<T>> } | { ok: false; reason: string } {
  try {
    return { ok: true, read: parseCommandLine(config) };
  } catch (error) {
    if (error instanceof UsageError) return { ok: false, reason: error.message };
    throw error;
  }
}
