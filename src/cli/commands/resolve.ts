import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { relative, resolve as resolvePath } from "node:path";
import { createCas } from "../../cas";
import { createDirStore, defaultCacheDir } from "../../cas/dir-store.node.js";
import { createEventLog } from "../../log";
import { messageOf } from "../../platform";
import {
  baseOfHarnessPath,
  buildLockFile,
  checkOrgAllowlist,
  createFixtureFetch,
  DEFAULT_LIMITS,
  type FetchLike,
  type LockFile,
  lockNameOf,
  type OrgConfig,
  parseLockFile,
  parseOrgConfig,
  parseYamlMapping,
  type Resolution,
  refForm,
  renderLockFile,
  resolveHarness,
} from "../../resolver";
import { createFsLocalFiles } from "../../resolver/fs-local-files.node.js";
import { parseCommandLine } from "../args";
import type { Command } from "../command";
import { createGuardedFetch, portsListedIn } from "../guarded-fetch";

const USAGE =
  "npx tab resolve HARNESS [--org-config FILE] [--allow-prefix URL]... [--offline] [--cache DIR] [--lock] [--warm] [--fixtures DIR] [--base DIR] [--max-depth N]";

/** One JSON line per resource and per lint diagnostic (the CLI's stable output). */
export function outputLines(resolution: Resolution): string[] {
  const lines = resolution.resources.map((r) =>
    JSON.stringify({
      field: r.field,
      ref: r.ref,
      kind: r.refKind,
      resource: r.resource,
      sha256: r.sha256,
      cache: r.cache,
      verdict: r.verdict.allowed ? "allowed" : "refused",
      code: r.verdict.code,
      reason: r.verdict.reason,
      ...(r.warning !== undefined ? { warning: r.warning } : {}),
    }),
  );
  for (const d of resolution.lints) lines.push(JSON.stringify({ field: d.field, severity: d.severity, code: d.code, message: d.message }));
  return lines;
}

async function readOrgConfig(
  path: string,
): Promise<{ ok: true; value: ReturnType<typeof parseOrgConfig> } | { ok: false; message: string }> {
  const parsed = parseYamlMapping(await readFile(path, "utf8"));
  if (!parsed.ok) return { ok: false, message: `${path}: ${parsed.reason}` };
  return { ok: true, value: parseOrgConfig(parsed.value) };
}

export const command: Command = {
  summary: "resolve: resolve a harness: fetch, verify pins, cache; one JSON line per resource",
  usage: `${USAGE}

  HARNESS            a harness file, or https://…/harness.yaml#sha256=<hex>
  --org-config FILE  the org config.yaml holding allowed_remote_resources (default: BASE/config.yaml if present)
  --allow-prefix URL one more org allowed_remote_resources entry (repeatable), checked as the page's
                     Resolver panel checks it: https://, ending in /, in normal form (no ./.. segments,
                     escapes or upper-case host)
  --offline          no network at all; every resource missing from the cache is listed
  --cache DIR        the content-addressed cache (default: ~/.cache/linux-in-a-tab/cas)
  --lock             write BASE/lock.yaml from a fresh resolution (otherwise BASE/lock.yaml, if present, is
                     read and its pins are preferred, with a lock-stale warning where it differs)
  --warm             fetch everything the harness needs into the cache, then stop
  --fixtures DIR     answer fetches from recordings (layout: src/resolver/README.md)
  --base DIR         the .fullsend base for relative references (default: the directory holding harness/)
  --max-depth N      how many levels of dependencies below the harness are resolved (default ${DEFAULT_LIMITS.maxDepth})

exit status: 0 when nothing was refused (lint errors alone do not fail), 1 when something was, 64 on usage errors`,
  async run(args) {
    let parsed: ReturnType<typeof parse>;
    const parse = (a: string[]) =>
      parseCommandLine({
        args: a,
        allowPositionals: true,
        options: {
          "org-config": { type: "string" },
          "allow-prefix": { type: "string", multiple: true },
          offline: { type: "boolean" },
          cache: { type: "string" },
          lock: { type: "boolean" },
          warm: { type: "boolean" },
          fixtures: { type: "string" },
          base: { type: "string" },
          "max-depth": { type: "string" },
        },
      });
    try {
      parsed = parse(args);
    } catch (error) {
      process.stderr.write(`tab resolve: ${messageOf(error)}\nusage: ${USAGE}\n`);
      return 64;
    }
    const { values, positionals } = parsed;
    if (positionals.length !== 1) {
      process.stderr.write(`tab resolve: expected one HARNESS\nusage: ${USAGE}\n`);
      return 64;
    }
    let maxDepth: number | undefined;
    if (values["max-depth"] !== undefined) {
      maxDepth = Number(values["max-depth"]);
      if (!/^\d+$/.test(values["max-depth"]) || maxDepth < 1 || maxDepth > 100) {
        process.stderr.write(`tab resolve: --max-depth must be a whole number from 1 to 100\nusage: ${USAGE}\n`);
        return 64;
      }
    }
    const ref = positionals[0]!;
    const isUrl = refForm(ref) === "url";
    const harness = isUrl ? ref : resolvePath(ref);
    const base = values.base !== undefined ? resolvePath(values.base) : isUrl ? process.cwd() : baseOfHarnessPath(harness);

    const orgPath = values["org-config"] ?? (existsSync(resolvePath(base, "config.yaml")) ? resolvePath(base, "config.yaml") : undefined);
    let orgConfig: OrgConfig | null = null;
    if (orgPath !== undefined) {
      const org = await readOrgConfig(orgPath).catch((error: Error) => ({ ok: false as const, message: error.message }));
      if (!org.ok) {
        process.stderr.write(`tab resolve: org config ${org.message}\n`);
        return 64;
      }
      if (!org.value.ok) {
        process.stderr.write(`tab resolve: ${org.value.verdict.reason}\n`);
        return 64;
      }
      orgConfig = org.value.value;
    }
    // The same check as the page's org allowlist editor (one engine, two hosts).
    const prefixes = values["allow-prefix"] ?? [];
    if (prefixes.length > 0) {
      const checked = checkOrgAllowlist(prefixes);
      if (!checked.ok) {
        process.stderr.write(`tab resolve: --allow-prefix ${checked.errors.join("; ")}\nusage: ${USAGE}\n`);
        return 64;
      }
      const listed = orgConfig?.allowed_remote_resources ?? [];
      orgConfig = { ...orgConfig, allowed_remote_resources: [...listed, ...checked.entries.filter((e) => !listed.includes(e))] };
    }

    const lockPath = resolvePath(base, "lock.yaml");
    let lock: LockFile | null = null;
    if (existsSync(lockPath)) {
      const parsedLock = parseLockFile(await readFile(lockPath, "utf8"));
      if (!parsedLock.ok) {
        process.stderr.write(`tab resolve: ${lockPath}: ${parsedLock.reason}\n`);
        return 64;
      }
      lock = parsedLock.lock;
    }

    const local = createFsLocalFiles();
    const fetch: FetchLike | undefined = values.offline
      ? undefined
      : values.fixtures !== undefined
        ? createFixtureFetch(local, resolvePath(values.fixtures))
        : // The one guarded fetch: names only, public addresses only, 443 or a port the org lists.
          createGuardedFetch({ ports: portsListedIn(orgConfig?.allowed_remote_resources ?? []) }).fetch;
    const log = createEventLog();
    const cas = createCas({ store: createDirStore(values.cache ?? defaultCacheDir()), log });
    const resolution = await resolveHarness({
      harness,
      local,
      cas,
      log,
      orgConfig,
      base,
      // Locking resolves afresh: preferring the old lock's pins would write them back unchanged.
      lock: values.lock ? null : lock,
      ...(maxDepth !== undefined ? { limits: { maxDepth } } : {}),
      offline: values.offline === true,
      warm: values.warm === true,
      ...(fetch ? { fetch } : {}),
    });
    for (const line of outputLines(resolution)) process.stdout.write(`${line}\n`);
    if (resolution.error) process.stderr.write(`tab resolve: refused: ${resolution.error.code}: ${resolution.error.reason}\n`);
    if (values.lock && resolution.ok) {
      const name = lockNameOf(isUrl ? ref : harness);
      await writeFile(
        lockPath,
        renderLockFile(buildLockFile(resolution, name, Date.now(), { previous: lock, source: isUrl ? ref : relative(base, harness) })),
      );
      process.stderr.write(`tab resolve: wrote ${lockPath}\n`);
    }
    return resolution.ok ? 0 : 1;
  },
};
