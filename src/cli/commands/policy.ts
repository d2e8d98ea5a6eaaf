import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { messageOf } from "../../platform";
import { type Policy, parsePolicy } from "../../policy";
import {
  checkRequest,
  DEFAULT_LEARN_DEPTH,
  describeCheck,
  describeLineErrors,
  describeReplayRow,
  describeReplaySummary,
  describeRuleChange,
  describeSkipped,
  diffPolicies,
  foreignPolicyFormat,
  type LogLine,
  learnPolicy,
  POLICY_FORMATS,
  type PolicyFormat,
  parseRequestLine,
  readLogLineChunks,
  replayLog,
} from "../../policy-tools";
import { parseCommandLine, UsageError } from "../args";
import type { Command } from "../command";

/** `npx tab policy check|learn|replay`: the page's policy-authoring tools on the command line (one engine: src/policy-tools). */

const USAGE = `npx tab policy check POLICY 'METHOD URL'
       npx tab policy learn LOG.jsonl [--base POLICY] [--depth N] [--format F] [--role R]
       npx tab policy replay POLICY LOG.jsonl
       npx tab policy import --format F FILE [--role R]
       npx tab policy export --format F POLICY [--role R]`;

const HELP = `${USAGE}

  check POLICY 'METHOD URL'   would this be allowed? The decision (code, reason, matching rule), no request sent.
                              'CONNECT host:port' checks a tunnel. Exit 0 allowed, 1 refused.
  learn LOG.jsonl             the smallest policy allowing exactly what the log shows served or would-refuse
                              (report mode), as JSON on stdout; the rule-by-rule diff against --base on stderr.
                              Never an IP address or a private name (localhost, single-label, .local, .internal…).
    --base POLICY             the current policy: the draft keeps its ports, http and vaults, and is diffed against it
    --depth N                 path segments kept in a learned prefix (default ${DEFAULT_LEARN_DEPTH}; 0 = any path)
  replay POLICY LOG.jsonl     every request of a GET /v0/log stream re-decided under POLICY, line by line:
                              unchanged, newly-refused, newly-allowed, or not-redecidable (the logged verdict
                              depended on the upstream: a redirect's target, a certificate). Exit 1 when any changed.

  import --format F FILE      another proxy's policy as a policy, on stdout; what cannot be expressed is named on stderr.
                              F: smokescreen (an ACL, version: v1; the service --role, or the default rule),
                              sandbox-runtime (srt or Claude Code settings: network.allowedDomains/deniedDomains),
                              awf (gh-aw-firewall's config: network.allowDomains/blockDomains),
                              openshell (an OpenShell sandbox policy's network_policies)
  export --format F POLICY    the policy in format F, on stdout; what it widens or loses is named on stderr
    --format F                with learn: the draft in format F, or json for this project's policy. Without it, learn
                              drafts in the format the user brought: the log's proxy (a smokescreen log drafts an ACL,
                              an awf audit.jsonl an awf config, an OpenShell log an OpenShell policy), else --base's

  POLICY is a policy file (YAML or JSON; mode: report serves what the allowlist would refuse and logs
  wouldRefuse), or another proxy's policy file (imported as above; see docs/formats.md). LOG.jsonl is what GET /v0/log serves (the page's Download log, npx tab proxy); - reads stdin.

  Both read only the log's proxy decisions, line by line: lines of other kinds (known or added by a newer
  version) are skipped and counted; a decision line that cannot be read refuses the log, named by its line.
  Other proxies' logs are read as decisions the same way, line by line (a log may mix them): smokescreen's
  CANONICAL-PROXY-DECISION lines, gh-aw-firewall's audit.jsonl (either envelope), OpenShell's OCSF JSON lines
  (network activity 4001, HTTP activity 4002). Where that proxy decided differently, replay says so on the line.

exit status: 0 allowed / nothing changed, 1 refused / a verdict changed, 64 bad input (a bad policy, a decision
line that cannot be read: each named by its line)`;

class BadInput extends Error {}

async function readText(path: string): Promise<string> {
  try {
    if (path === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    }
    return await readFile(path, "utf8");
  } catch (error) {
    throw new BadInput(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`);
  }
}

async function readPolicy(path: string, role?: string): Promise<Policy> {
  return (await readPolicyFile(path, role)).policy;
}

/** A policy file, this project's or another proxy's (then `format` names it). */
async function readPolicyFile(path: string, role?: string): Promise<{ policy: Policy; format: string | null }> {
  const text = await readText(path);
  const foreign = foreignPolicyFormat(text);
  if (foreign) return { policy: importForeign(path, text, POLICY_FORMATS[foreign]!, role), format: foreign };
  const loaded = parsePolicy(text);
  if (!loaded.ok) throw new BadInput(`${path} is not a valid policy:\n  ${loaded.errors.join("\n  ")}`);
  return { policy: loaded.policy, format: null };
}

/** Another proxy's policy as a policy; what the translation could not express goes to stderr, named. */
function importForeign(path: string, text: string, format: PolicyFormat, role?: string): Policy {
  const imported = format.import(text, role === undefined ? {} : { role });
  if (!imported.ok) throw new BadInput(`${path} is not valid ${format.label}:\n  ${imported.errors.join("\n  ")}`);
  if (imported.notes.length > 0) process.stderr.write(`${imported.notes.map((n) => `${path}: ${n}`).join("\n")}\n`);
  return imported.value;
}

/** `--format json` is this project's own policy (so a foreign log can still be drafted as one). */
const OWN_FORMAT = "json";

function formatNamed(format: string | undefined): PolicyFormat | undefined {
  if (format === undefined || format === OWN_FORMAT) return undefined;
  const found = POLICY_FORMATS[format];
  if (!found) throw new BadInput(`--format ${JSON.stringify(format)} is not known (formats: ${Object.keys(POLICY_FORMATS).join(", ")})`);
  return found;
}

/**
 * The log's decisions, read as a stream, line by line (a log may be larger than memory would
 * like as one string); lines of other kinds are counted, a decision line that cannot be read
 * is named and refuses the read.
 */
async function readLog(
  path: string,
  purpose: "a replay" | "a draft",
): Promise<{ lines: LogLine[]; skipped: string[]; format: string | null }> {
  const source = path === "-" ? process.stdin.setEncoding("utf8") : createReadStream(path, { encoding: "utf8" });
  let read: Awaited<ReturnType<typeof readLogLineChunks>>;
  try {
    read = await readLogLineChunks(source as AsyncIterable<string>);
  } catch (error) {
    throw new BadInput(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`);
  }
  if (!read.ok) throw new BadInput(describeLineErrors(read.errors, path));
  return { lines: read.lines, skipped: [describeSkipped(read.skipped, purpose)].filter((s) => s !== ""), format: read.format };
}

function out(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}

async function check(positionals: string[], role?: string): Promise<number> {
  const [policyPath, line, ...extra] = positionals;
  if (policyPath === undefined || line === undefined || extra.length > 0)
    throw new BadInput("check takes POLICY and one quoted 'METHOD URL'");
  const policy = await readPolicy(policyPath, role);
  const parsed = parseRequestLine(line);
  if (!parsed.ok) throw new BadInput(parsed.reason);
  const result = checkRequest(policy, parsed.request);
  out(describeCheck(result));
  return result.verdict.allowed ? 0 : 1;
}

async function learn(positionals: string[], values: { base?: string; depth?: string; format?: string; role?: string }): Promise<number> {
  const [logPath, ...extra] = positionals;
  if (logPath === undefined || extra.length > 0) throw new BadInput("learn takes one LOG.jsonl");
  let depth = DEFAULT_LEARN_DEPTH;
  if (values.depth !== undefined) {
    if (!/^\d{1,2}$/.test(values.depth))
      throw new BadInput(`--depth must be a whole number from 0 to 99, not ${JSON.stringify(values.depth)}`);
    depth = Number(values.depth);
  }
  formatNamed(values.format);
  const baseFile = values.base === undefined ? undefined : await readPolicyFile(values.base, values.role);
  const base = baseFile?.policy;
  const { lines, skipped, format: logFormat } = await readLog(logPath, "a draft");
  const learned = learnPolicy(lines, { depth, ...(base ? { base } : {}) });
  const report: string[] = [`learned from ${learned.learnedFrom} requests (depth ${depth})`];
  // The draft is written in the format the user brought: --format, else the log's proxy, else the --base file's.
  const formatName = values.format ?? logFormat ?? baseFile?.format ?? undefined;
  const format = formatNamed(formatName);
  if (format) {
    if (values.format === undefined)
      report.push(
        `drafted as ${format.label} (the ${logFormat ? "log" : "--base policy"}'s format; --format json for this project's policy)`,
      );
    const exported = format.export(learned.policy, values.role === undefined ? {} : { role: values.role });
    process.stdout.write(exported.value);
    report.push(...exported.notes.map((n) => `${formatName}: ${n}`));
  } else process.stdout.write(`${JSON.stringify(learned.policy, null, 2)}\n`);
  if (base) for (const change of diffPolicies(base, learned.policy)) if (change.kind !== "same") report.push(describeRuleChange(change));
  for (const skip of learned.skipped) report.push(`not learned: line ${skip.line} ${skip.target}: ${skip.reason}`);
  for (const note of learned.notes) report.push(`note: ${note}`);
  report.push(...skipped);
  process.stderr.write(`${report.join("\n")}\n`);
  return 0;
}

async function replay(positionals: string[], role?: string): Promise<number> {
  const [policyPath, logPath, ...extra] = positionals;
  if (policyPath === undefined || logPath === undefined || extra.length > 0) throw new BadInput("replay takes POLICY and LOG.jsonl");
  const policy = await readPolicy(policyPath, role);
  const { lines, skipped } = await readLog(logPath, "a replay");
  const result = replayLog(policy, lines);
  out([...result.rows.map(describeReplayRow), describeReplaySummary(result.summary), ...skipped]);
  return result.summary.changed ? 1 : 0;
}

async function importPolicy(positionals: string[], values: { format?: string; role?: string }): Promise<number> {
  const [aclPath, ...extra] = positionals;
  const format = formatNamed(values.format);
  if (values.format === OWN_FORMAT) throw new BadInput(`--format json is this project's policy; import converts other proxies' formats`);
  if (!format) throw new BadInput(`import needs --format (${Object.keys(POLICY_FORMATS).join(", ")})`);
  if (aclPath === undefined || extra.length > 0) throw new BadInput("import takes one file");
  const policy = importForeign(aclPath, await readText(aclPath), format, values.role);
  process.stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  return 0;
}

async function exportPolicy(positionals: string[], values: { format?: string; role?: string }): Promise<number> {
  const [policyPath, ...extra] = positionals;
  const format = formatNamed(values.format);
  if (values.format === OWN_FORMAT) throw new BadInput(`--format json is this project's policy; export converts other proxies' formats`);
  if (!format) throw new BadInput(`export needs --format (${Object.keys(POLICY_FORMATS).join(", ")})`);
  if (policyPath === undefined || extra.length > 0) throw new BadInput("export takes one POLICY");
  const exported = format.export(await readPolicy(policyPath), values.role === undefined ? {} : { role: values.role });
  process.stdout.write(exported.value);
  if (exported.notes.length > 0) process.stderr.write(`${exported.notes.map((n) => `${values.format}: ${n}`).join("\n")}\n`);
  return 0;
}

export const command: Command = {
  summary:
    "policy: author a policy: check a request, learn a policy from a log, replay a log under a policy, import/export other proxies' formats",
  usage: HELP,
  async run(args) {
    const [sub, ...rest] = args;
    try {
      const { values, positionals } = parseCommandLine({
        args: rest,
        allowPositionals: true,
        options: { base: { type: "string" }, depth: { type: "string" }, format: { type: "string" }, role: { type: "string" } },
      });
      if ((values.base !== undefined || values.depth !== undefined) && sub !== "learn")
        throw new BadInput("--base and --depth are options of learn");
      if (values.format !== undefined && sub !== "learn" && sub !== "import" && sub !== "export")
        throw new BadInput("--format is an option of learn, import and export");
      if (sub === "check") return await check(positionals, values.role);
      if (sub === "learn") return await learn(positionals, values);
      if (sub === "replay") return await replay(positionals, values.role);
      if (sub === "import") return await importPolicy(positionals, values);
      if (sub === "export") return await exportPolicy(positionals, values);
      throw new BadInput(sub === undefined ? "expected check, learn, replay, import or export" : `unknown subcommand "${sub}"`);
    } catch (error) {
      if (!(error instanceof BadInput) && !(error instanceof UsageError)) throw error;
      process.stderr.write(`tab policy: ${messageOf(error)}\nusage: ${USAGE}\n`);
      return 64;
    }
  },
};
