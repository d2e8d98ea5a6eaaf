import { refuse, type Verdict } from "../log";

/** The bare-path heuristic of docs/decisions/0002-preflight-check-is-a-literal-command.md, as written there (a hint, not a security control). */
export const PREFLIGHT_PATH_LIKE = /^[./]?[\w./-]+\.(sh|py|rb|js)$/;

export interface LintDiagnostic {
  field: string;
  severity: "error" | "warning" | "info";
  code: string;
  message: string;
}

/**
 * Flags a `preflight_check` that looks like a script path, at severity error. The
 * diagnostic is shown, never fatal: the command is not resolved and not refused for it.
 */
export function lintPreflight(field: string, command: string | undefined): LintDiagnostic[] {
  if (command === undefined || !PREFLIGHT_PATH_LIKE.test(command)) return [];
  return [
    {
      field,
      severity: "error",
      code: "preflight-path-like",
      message: `${field} "${command}" looks like a script path, but preflight_check is a literal sh -c command and is never resolved or fetched; inline the probe or call it explicitly`,
    },
  ];
}

/** The minimal host environment a preflight may see unless the harness's host allows more. */
export const DEFAULT_PREFLIGHT_ENV: readonly string[] = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "SHELL"];

/** Forge, mint and provider credentials, excluded by default. */
const CREDENTIAL_NAMES = new Set([
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITLAB_TOKEN",
  "GL_TOKEN",
  "CI_JOB_TOKEN",
  "FORGEJO_TOKEN",
  "GITEA_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_URL",
  "ACTIONS_RUNTIME_TOKEN",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GOOGLE_API_KEY",
  "GEMINI_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_CLIENT_SECRET",
  "NPM_TOKEN",
  "VAULT_TOKEN",
]);
const CREDENTIAL_SHAPE =
  /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|AUTH|COOKIE|SESSION)(_|$)/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAMES.has(name.toUpperCase()) || CREDENTIAL_SHAPE.test(name);
}

export type PreflightExpansion =
  | { ok: true; command: string; references: string[] }
  | { ok: false; verdict: Verdict; references: string[] };

export interface ExpandOptions {
  /**
   * Credentials individually justified for this probe (a credential is admitted
   * only with a justification for that one probe): only these may pass the credential rule.
   */
  justifiedCredentials?: readonly string[];
}

const REFERENCE = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${VAR}` in a preflight command from an explicit allowlisted environment. Every
 * reference is checked BEFORE anything is expanded: one outside the allowlist, a credential,
 * or a form other than `${NAME}` refuses the whole command (`env-not-allowed`). The reason
 * echoes the command with sensitive values redacted.
 */
export function expandPreflight(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  allowlist: readonly string[],
  options: ExpandOptions = {},
): PreflightExpansion {
  const references = [...command.matchAll(REFERENCE)].map((m) => m[1]!);
  const allowed = new Set(allowlist);
  const justified = new Set(options.justifiedCredentials ?? []);
  const shown = redact(command, env);
  const unclosed = command.replace(REFERENCE, "").includes("${");
  if (unclosed)
    return {
      ok: false,
      references,
      verdict: refuse("env-not-allowed", `preflight_check has an unclosed \${ reference: ${shown}`, "resolver"),
    };
  for (const name of references) {
    if (!NAME.test(name)) {
      return {
        ok: false,
        references,
        verdict: refuse(
          "env-not-allowed",
          `\${${name.slice(0, 40)}} is not a plain \${NAME} reference; only those expand: ${shown}`,
          "resolver",
        ),
      };
    }
    if (isCredentialName(name) && !justified.has(name)) {
      return {
        ok: false,
        references,
        verdict: refuse(
          "env-not-allowed",
          `\${${name}} is a credential; forge, mint and provider tokens never reach a preflight check: ${shown}`,
          "resolver",
        ),
      };
    }
    if (!allowed.has(name)) {
      return {
        ok: false,
        references,
        verdict: refuse(
          "env-not-allowed",
          `\${${name}} is not in the preflight environment allowlist (${[...allowed].join(", ") || "empty"}): ${shown}`,
          "resolver",
        ),
      };
    }
  }
  return { ok: true, references, command: command.replace(REFERENCE, (_, name: string) => env[name] ?? "") };
}

/** Token shapes redacted wherever they appear, whatever variable they came from. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{8,}=*/g,
];

/**
 * Redacts sensitive values from a diagnostic (failure and timeout diagnostics
 * include the expanded command): the values of credential-named variables in `env`, then
 * anything shaped like a known token.
 */
export function redact(text: string, env: Readonly<Record<string, string | undefined>> = {}): string {
  let out = text;
  const secrets = Object.entries(env)
    .filter((e): e is [string, string] => typeof e[1] === "string" && e[1].length >= 4 && isCredentialName(e[0]))
    .sort((a, b) => b[1].length - a[1].length);
  for (const [name, value] of secrets) out = out.split(value).join(`[redacted:${name}]`);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, "[redacted]");
  return out;
}
