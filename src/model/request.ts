import { ANTHROPIC_VERSION, type ModelSettings, modelUrl } from "./settings";

/** One model call as an HTTP request: built here, fetched by the proxy's by-value path. */
export interface ModelHttpRequest {
  method: "POST";
  url: string;
  /** Includes the key header: handed to the upstream fetch only, never logged. */
  headers: [string, string][];
  body: string;
}

export interface ModelPrompt {
  system: string;
  user: string;
}

/** One step line is short; a bound keeps a confused model from writing an essay on the user's key. */
export const MAX_ANSWER_TOKENS = 300;

export function buildModelRequest(settings: ModelSettings, prompt: ModelPrompt): ModelHttpRequest {
  const url = modelUrl(settings);
  if (settings.provider === "anthropic")
    return {
      method: "POST",
      url,
      headers: [
        ["content-type", "application/json"],
        ["x-api-key", settings.key],
        ["anthropic-version", ANTHROPIC_VERSION],
        // The page calls the API from the browser, with a key the user typed into this page.
        ["anthropic-dangerous-direct-browser-access", "true"],
      ],
      body: JSON.stringify({
        model: settings.model,
        max_tokens: MAX_ANSWER_TOKENS,
        system: prompt.system,
        messages: [{ role: "user", content: prompt.user }],
      }),
    };
  return {
    method: "POST",
    url,
    headers: [
      ["content-type", "application/json"],
      ["authorization", `Bearer ${settings.key}`],
    ],
    body: JSON.stringify({
      model: settings.model,
      max_tokens: MAX_ANSWER_TOKENS,
      messages: [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user },
      ],
    }),
  };
}
