import { createEventLog, type EventLog, toJsonLine, type Verdict } from "../../log";
import { acquireSkill, DEFAULT_REGISTRY, DEFAULT_SEARCH_LIMIT, type SkillsFetch, searchSkills } from "../../skills";
// ".js" because tsx reads a bare "x.node" as a file with the extension ".node"; it maps .js to .ts.
import { createDirStores, DEFAULT_SKILLS_CACHE } from "../../skills/dir-store.node.js";
import { createFixtureFetch } from "../../skills/testing/fixture-fetch.node.js";
import type { Command } from "../command";
import { createGuardedFetch } from "../guarded-fetch";

/**
 * `npx tab skills search|acquire`: the same core the page uses. Output is one JSON
 * line per hit, refusal or handle record; the skill's text is never printed. Exit 0 on success,
 * 1 on a refusal, 64 on a usage error. `--log` writes the `skills.step` events to stderr.
 */
const USAGE = [
  "npx tab skills search QUERY [--registry URL] [--limit N] [--fixtures DIR] [--log]",
  "       npx tab skills acquire ID [--cache DIR] [--fixtures DIR] [--log]",
  "",
  "  ID is owner/repo/slug (pinned to the default branch head), owner/repo/slug@<40-hex sha>,",
  "  or https://host/.well-known/agent-skills/index.json#name",
  `  --registry  registry origin (default ${DEFAULT_REGISTRY})`,
  `  --limit     hits to return, 1-50 (default ${DEFAULT_SEARCH_LIMIT})`,
  `  --cache     directory store for admitted bytes and handle records (default ${DEFAULT_SKILLS_CACHE})`,
  "  --fixtures  answer every request from recorded files (DIR/HOST/PATH) instead of the network",
].join("\n");

interface Options {
  positional: string[];
  flags: Map<string, string>;
  switches: Set<string>;
}

const VALUED = new Set(["--registry", "--limit", "--cache", "--fixtures"]);
const SWITCHES = new Set(["--log"]);

function parseArgs(args: string[]): Options | string {
  const options: Options = { positional: [], flags: new Map(), switches: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (VALUED.has(name)) {
      const value = eq > 0 && name !== arg ? arg.slice(eq + 1) : args[++i];
      if (value === undefined) return `${name} needs a value`;
      options.flags.set(name, value);
    } else if (SWITCHES.has(arg)) {
      options.switches.add(arg);
    } else if (arg.startsWith("--")) {
      return `unknown option ${arg}`;
    } else {
      options.positional.push(arg);
    }
  }
  return options;
}

function line(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function refusal(verdict: Verdict): number {
  line({ type: "refusal", ...verdict });
  return 1;
}

function usage(message: string): number {
  process.stderr.write(`tab skills: ${message}\n\nusage: ${USAGE}\n`);
  return 64;
}

function makeLog(options: Options): EventLog {
  const log = createEventLog();
  if (options.switches.has("--log")) log.subscribe((event) => process.stderr.write(toJsonLine(event)));
  return log;
}

function makeFetch(options: Options): SkillsFetch {
  const fixtures = options.flags.get("--fixtures");
  // The one guarded fetch: names only, public addresses only, port 443, no redirects followed.
  return fixtures ? createFixtureFetch(fixtures) : createGuardedFetch().fetch;
}

async function search(options: Options): Promise<number> {
  const [query, ...extra] = options.positional;
  if (query === undefined || extra.length > 0) return usage("search takes one QUERY (quote it if it has spaces)");
  const limitFlag = options.flags.get("--limit");
  const limit = limitFlag === undefined ? undefined : /^\d+$/.test(limitFlag) ? Number(limitFlag) : Number.NaN;
  const registry = options.flags.get("--registry");
  const outcome = await searchSkills(
    { query, ...(limit === undefined ? {} : { limit }), ...(registry === undefined ? {} : { registry }) },
    { fetch: makeFetch(options), log: makeLog(options) },
  );
  if (!outcome.ok) return refusal(outcome.verdict);
  for (const hit of outcome.hits) line({ type: "hit", ...hit });
  line({ type: "search", registry: outcome.registry, hits: outcome.hits.length, dropped: outcome.dropped, ...outcome.verdict });
  return 0;
}

async function acquire(options: Options): Promise<number> {
  const [id, ...extra] = options.positional;
  if (id === undefined || extra.length > 0) return usage("acquire takes one ID");
  const { store, handles } = createDirStores(options.flags.get("--cache") ?? DEFAULT_SKILLS_CACHE);
  const outcome = await acquireSkill(id, { fetch: makeFetch(options), log: makeLog(options), store, handles });
  if (!outcome.ok) return refusal(outcome.verdict);
  line({ type: "handle", ...outcome.record });
  return 0;
}

export const command: Command = {
  summary: "skills: search a skill registry (metadata only) and acquire a skill from a pinned address behind a handle",
  usage: USAGE,
  async run(args) {
    const [sub, ...rest] = args;
    const options = parseArgs(rest);
    if (typeof options === "string") return usage(options);
    if (sub === "search") return search(options);
    if (sub === "acquire") return acquire(options);
    return usage(sub === undefined ? "which subcommand?" : `unknown subcommand ${JSON.stringify(sub)}`);
  },
};
