import { createEventLog, type EventLog, toJsonLine, type Verdict } from "../../log";
import { acquireSkill, DEFAULT_REGISTRY, DEFAULT_SEARCH_LIMIT, type SkillsFetch, searchSkills } from "../../skills";
// ".js" because tsx reads a bare "x.node" as a file with the extension ".node"; it maps .js to .ts.
import { createDirStores, DEFAULT_SKILLS_CACHE } from "../../skills/dir-store.node.js";
import { createFixtureFetch } from "../../skills/testing/fixture-fetch.node.js";
import { readCommandLineOrReason } from "../args";
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

const OPTIONS = {
  registry: { type: "string" },
  limit: { type: "string" },
  cache: { type: "string" },
  fixtures: { type: "string" },
  log: { type: "boolean" },
} as const;

interface Options {
  positional: string[];
  values: { registry?: string; limit?: string; cache?: string; fixtures?: string; log?: boolean };
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
  if (options.values.log) log.subscribe((event) => process.stderr.write(toJsonLine(event)));
  return log;
}

function makeFetch(options: Options): SkillsFetch {
  const fixtures = options.values.fixtures;
  // The one guarded fetch: names only, public addresses only, port 443, no redirects followed.
  return fixtures ? createFixtureFetch(fixtures) : createGuardedFetch().fetch;
}

async function search(options: Options): Promise<number> {
  const [query, ...extra] = options.positional;
  if (query === undefined || extra.length > 0) return usage("search takes one QUERY (quote it if it has spaces)");
  const limitFlag = options.values.limit;
  const limit = limitFlag === undefined ? undefined : /^\d+$/.test(limitFlag) ? Number(limitFlag) : Number.NaN;
  const registry = options.values.registry;
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
  const { store, handles } = createDirStores(options.values.cache ?? DEFAULT_SKILLS_CACHE);
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
    const got = readCommandLineOrReason({ args: rest, options: OPTIONS, allowPositionals: true });
    if (!got.ok) return usage(got.reason);
    const options: Options = { positional: got.read.positionals, values: got.read.values };
    if (sub === "search") return search(options);
    if (sub === "acquire") return acquire(options);
    return usage(sub === undefined ? "which subcommand?" : `unknown subcommand ${JSON.stringify(sub)}`);
  },
};
