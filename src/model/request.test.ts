import { describe, expect, it } from "vitest";
import { buildModelRequest, MAX_ANSWER_TOKENS } from "./request";
import { ANTHROPIC_MESSAGES_URL, ModelSettings, modelUrl } from "./settings";

// The model-driven agent: a user-supplied key turns the scripted agent into a model-driven
// one. These are the two request shapes the page sends through the proxy.

const KEY = "tabkey-CANARY-req-0123456789";
const prompt = { system: "SYSTEM TEXT", user: "USER TEXT" };

describe("the request each provider gets", () => {
  it("Anthropic Messages: POST /v1/messages with x-api-key, anthropic-version, the browser-access header, system + one user message", () => {
    const settings = ModelSettings.parse({ provider: "anthropic", model: "claude-sonnet-4-5", key: KEY });
    const request = buildModelRequest(settings, prompt);
    expect(request.method).toBe("POST");
    expect(request.url).toBe("https://api.anthropic.com/v1/messages");
    expect(request.headers).toEqual([
      ["content-type", "application/json"],
      ["x-api-key", KEY],
      ["anthropic-version", "2023-06-01"],
      ["anthropic-dangerous-direct-browser-access", "true"],
    ]);
    expect(JSON.parse(request.body)).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: MAX_ANSWER_TOKENS,
      system: "SYSTEM TEXT",
      messages: [{ role: "user", content: "USER TEXT" }],
    });
  });

  it("OpenAI-compatible: POST <base>/v1/chat/completions with a Bearer key, a system and a user message", () => {
    const settings = ModelSettings.parse({ provider: "openai", model: "llama-3.1-8b", baseUrl: "https://llm.example/openai", key: KEY });
    const request = buildModelRequest(settings, prompt);
    expect(request.url).toBe("https://llm.example/openai/v1/chat/completions");
    expect(request.headers).toEqual([
      ["content-type", "application/json"],
      ["authorization", `Bearer ${KEY}`],
    ]);
    expect(JSON.parse(request.body)).toEqual({
      model: "llama-3.1-8b",
      max_tokens: MAX_ANSWER_TOKENS,
      messages: [
        { role: "system", content: "SYSTEM TEXT" },
        { role: "user", content: "USER TEXT" },
      ],
    });
  });

  it("never puts the key in the URL or the body", () => {
    for (const provider of ["anthropic", "openai"] as const) {
      const request = buildModelRequest(ModelSettings.parse({ provider, model: "m", key: KEY }), prompt);
      expect(request.url).not.toContain(KEY);
      expect(request.body).not.toContain(KEY);
    }
  });
});

describe("the model URL (what the policy must allow)", () => {
  it.each([
    [
      "the Anthropic API for anthropic, whatever base is given",
      { provider: "anthropic", baseUrl: "https://x.example" },
      ANTHROPIC_MESSAGES_URL,
    ],
    ["api.openai.com by default", { provider: "openai" }, "https://api.openai.com/v1/chat/completions"],
    ["the given base", { provider: "openai", baseUrl: "https://llm.example" }, "https://llm.example/v1/chat/completions"],
    [
      "a base given with /v1 and a slash, once",
      { provider: "openai", baseUrl: "https://llm.example/openai/v1/" },
      "https://llm.example/openai/v1/chat/completions",
    ],
  ] as const)("is %s", (_name, partial, url) => {
    expect(modelUrl(ModelSettings.parse({ model: "m", key: KEY, ...partial }))).toBe(url);
  });
});

describe("settings are validated before anything is sent", () => {
  it.each([
    ["an unknown provider", { provider: "gemini" }],
    ["an empty model name", { model: " " }],
    ["a model name with a space", { model: "a b" }],
    ["a short key", { key: "abc" }],
    ["a key with a line break (header injection)", { key: "tabkey-0123456789\r\nx-evil: 1" }],
    ["a plain-http base URL", { provider: "openai", baseUrl: "http://llm.example" }],
    ["a base URL with credentials", { provider: "openai", baseUrl: "https://u:p@llm.example" }],
    ["a base URL with a query", { provider: "openai", baseUrl: "https://llm.example/?key=1" }],
    ["a base URL that is not a URL", { provider: "openai", baseUrl: "llm.example" }],
  ])("refuses %s", (_name, partial) => {
    expect(ModelSettings.safeParse({ provider: "anthropic", model: "m", key: KEY, ...partial }).success).toBe(false);
  });
});
