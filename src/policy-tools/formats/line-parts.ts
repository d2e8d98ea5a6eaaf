import type { z } from "zod";

/** What the three log translators (smokescreen, awf, OpenShell) read a line with. */

/** `example.com:443`, `example.com` (the proxy type's port: 443 for CONNECT, else 80), `[::1]:443`. */
export function withPort(host: string, connect: boolean): string {
  if (/:\d+$/.test(host) && (!host.startsWith("[") || host.includes("]:"))) return host;
  return `${host}:${connect ? 443 : 80}`;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** A line's schema faults, `path: message; …` (`(line)` for the line itself). */
export const lineIssues = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.join(".") || "(line)"}: ${i.message}`).join("; ");
