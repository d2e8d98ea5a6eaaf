/**
 * Which web pages may open a WebSocket to the relay. A WebSocket has no CORS: without this
 * check any site the user visits could use a local relay as a TCP relay from the user's own
 * address. An allowed origin is matched exactly (scheme, host and port); `*` may stand for the
 * port only, so `http://127.0.0.1:*` allows the playground on any local port and nothing else
 * (`http://127.0.0.1.evil.example` is another host).
 */

export interface OriginRule {
  scheme: "http" | "https";
  host: string;
  /** The port as the Origin header spells it ("" for the scheme's default), or "*" for any. */
  port: string;
}

/** The playground's own origins: `npx tab` and `npm start` serve it on loopback, any port. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = ["http://127.0.0.1:*", "http://localhost:*"];

const ORIGIN = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}|\*))?$/;

/** An `--allow-origin` value as a rule, or why it is not one. */
export function parseOriginRule(text: string): OriginRule | { error: string } {
  const match = ORIGIN.exec(text.trim().toLowerCase());
  const bad = {
    error: `--allow-origin ${JSON.stringify(text)} is not an origin: scheme://host[:port], with * only as the port (e.g. https://tab.example.org or http://127.0.0.1:*)`,
  };
  if (!match) return bad;
  const [, scheme, host, rawPort = ""] = match;
  if ((scheme !== "http" && scheme !== "https") || host === undefined) return bad;
  if (rawPort !== "*" && rawPort !== "" && Number(rawPort) > 65535) return bad;
  // An origin never spells its scheme's default port.
  const port = (scheme === "http" && rawPort === "80") || (scheme === "https" && rawPort === "443") ? "" : rawPort;
  return { scheme, host, port };
}

/** Whether a request's `Origin` header is one the rules allow; a missing or `null` one never is. */
export function originAllowed(header: string | undefined, rules: readonly OriginRule[]): boolean {
  if (header === undefined || header === "null") return false;
  const match = ORIGIN.exec(header.toLowerCase());
  if (!match || match[3] === "*") return false;
  const [, scheme, host, port = ""] = match;
  return rules.some((rule) => rule.scheme === scheme && rule.host === host && (rule.port === "*" || rule.port === port));
}
