import { z } from "zod";

/**
 * Which model API a model-driven run talks to (optional part): the Anthropic Messages
 * API, or any OpenAI-compatible chat completions endpoint. The key is part of the settings
 * the page holds in memory; it never reaches the guest, the share, the terminal or the log.
 */

export const MODEL_PROVIDERS = ["anthropic", "openai"] as const;
export const ModelProvider = z.enum(MODEL_PROVIDERS);
export type ModelProvider = z.infer<typeof ModelProvider>;

export const ANTHROPIC_MESSAGES_URL = "https://api.anthropic.com/v1/messages";
export const ANTHROPIC_VERSION = "2023-06-01";
export const DEFAULT_OPENAI_BASE = "https://api.openai.com";
export const DEFAULT_MODELS: Readonly<Record<ModelProvider, string>> = { anthropic: "claude-sonnet-4-5", openai: "gpt-4o-mini" };

/** What a browser can put in a header value and a JSON string without surprises. */
const PRINTABLE = /^[\x21-\x7e]+$/;

/** `https://host[:port][/path]` without credentials, query or fragment; a trailing `/v1` is dropped (it is added back). */
export const OpenAiBase = z
  .string()
  .trim()
  .max(500)
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "the base URL is not a URL" });
      return z.NEVER;
    }
    if (url.protocol !== "https:") ctx.addIssue({ code: "custom", message: "the base URL must be https://" });
    if (url.username || url.password) ctx.addIssue({ code: "custom", message: "the base URL must not carry credentials" });
    if (url.search || url.hash) ctx.addIssue({ code: "custom", message: "the base URL must not carry a query or fragment" });
    const path = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
    return `${url.origin}${path}`;
  });

export const ModelSettings = z.strictObject({
  provider: ModelProvider,
  model: z.string().trim().min(1, "name a model").max(200).regex(PRINTABLE, "a model name is printable ASCII without spaces"),
  /** OpenAI-compatible only: where `/v1/chat/completions` lives. */
  baseUrl: OpenAiBase.optional(),
  key: z.string().trim().min(8, "the key is too short").max(1000).regex(PRINTABLE, "a key is printable ASCII without spaces"),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** The URL a model call goes to: what the policy must allow (POST). */
export function modelUrl(settings: Pick<ModelSettings, "provider" | "baseUrl">): string {
  if (settings.provider === "anthropic") return ANTHROPIC_MESSAGES_URL;
  return `${settings.baseUrl ?? DEFAULT_OPENAI_BASE}/v1/chat/completions`;
}
