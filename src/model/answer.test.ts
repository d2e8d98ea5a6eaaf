import { describe, expect, it } from "vitest";
import { parseModelAnswer } from "./answer";
import { boundTranscript, systemPrompt, userMessage } from "./prompt";
import { redactSecret } from "./redact";
import { extractStep } from "./step";
import { STEP_SCHEMA, TEST_VERBS } from "./testing/steps";

// The model-driven agent: every model answer is parsed with zod, and it must be exactly one
// valid step line; anything else is a clear stop reason, never a guess.

const anthropic = (text: string) => JSON.stringify({ type: "message", content: [{ type: "text", text }] });
const openai = (content: string | null) => JSON.stringify({ choices: [{ message: { role: "assistant", content } }] });

describe("a model API answer yields the reply's text", () => {
  it.each([
    ["an Anthropic message", "anthropic", anthropic("post https://api.github.com/zen"), "post https://api.github.com/zen"],
    [
      "an Anthropic message in several text blocks (tool blocks ignored)",
      "anthropic",
      JSON.stringify({
        content: [
          { type: "text", text: "done " },
          { type: "tool_use", id: "t" },
          { type: "text", text: "all good" },
        ],
      }),
      "done all good",
    ],
    ["a chat completion", "openai", openai("list ."), "list ."],
    ["a chat completion with null content (as nothing)", "openai", openai(null), ""],
  ] as const)("reads %s", (_name, provider, body, text) => {
    expect(parseModelAnswer(provider, 200, body)).toEqual({ ok: true, text });
  });

  it.each([
    [
      "a 401 with the API's error shape",
      "anthropic",
      401,
      JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }),
      "bad-status",
      "the model API answered 401: authentication_error: invalid x-api-key",
    ],
    ["a 500 with an HTML page", "openai", 500, "<html>oops</html>", "bad-status", "the model API answered 500: <html>oops</html>"],
    ["a 429 with no body", "openai", 429, "", "bad-status", "the model API answered 429: no body"],
    ["a 200 that is not JSON", "anthropic", 200, "hello", "unparsable", "the model API's answer is not JSON: hello"],
    ["a 200 without content[]", "anthropic", 200, JSON.stringify({ completion: "x" }), "unparsable", "not a Messages API message"],
    ["a 200 without choices", "openai", 200, JSON.stringify({ choices: [] }), "unparsable", "not a chat completion"],
  ] as const)("refuses %s", (_name, provider, status, body, code, reason) => {
    const answer = parseModelAnswer(provider, status, body);
    expect(answer).toMatchObject({ ok: false, code });
    expect(answer.ok ? "" : answer.reason).toContain(reason);
  });

  it("quotes at most one bounded line of a hostile error body", () => {
    const answer = parseModelAnswer("openai", 502, `line one\nline two ${"x".repeat(500)}`);
    expect(answer.ok ? "" : answer.reason).not.toContain("\n");
    expect((answer.ok ? "" : answer.reason).length).toBeLessThan(220);
  });
});

const rules = { verbs: TEST_VERBS.map((v) => v.verb), schema: STEP_SCHEMA };

describe("the reply must be exactly one step line the agent may take", () => {
  it.each([
    ["a plain step", "post https://api.github.com/zen", "post https://api.github.com/zen"],
    ["a step with surrounding whitespace", "  \n connect 93.184.216.34 443 \n", "connect 93.184.216.34 443"],
    ["a step in a code fence", "```\ndone found the zen\n```", "done found the zen"],
    ["a step in a labelled code fence", "```sh\nlist .\n```", "list ."],
    ["a step in backticks", "`read README.md`", "read README.md"],
    ["a verb without argument", "list", "list"],
  ])("accepts %s", (_name, text, step) => {
    expect(extractStep(text, rules)).toEqual({ ok: true, step });
  });

  it.each([
    ["nothing", "   ", "answered nothing"],
    ["two steps", "list .\ndone ok", "answered 2 lines"],
    ["a step with commentary", "I will look around first.\nlist .", "answered 2 lines"],
    ["an unknown verb", "rm -rf /", '"rm" is not a step the agent may take'],
    ["the model verb itself (no loop inside the loop)", "model do it again", '"model" is not a step'],
    ["a verb glued to its argument", "list.", '"list." is not a step'],
    ["a line the runner's rule refuses", `read ${"a".repeat(4100)}`, "read aaaa"],
  ])("refuses %s", (_name, text, reason) => {
    const answer = extractStep(text, rules);
    expect(answer.ok).toBe(false);
    expect(answer.ok ? "" : answer.reason).toContain(reason);
  });
});

describe("what the model is told", () => {
  const prompt = systemPrompt({ verbs: TEST_VERBS, rules: "# Platform rules (authoritative)\n\n1. Stay in /tmp.\n", maxSteps: 12 });

  it("lists every verb with its usage, the step bound, the one-line rule and the platform rules", () => {
    for (const v of TEST_VERBS) expect(prompt).toContain(v.usage);
    expect(prompt).toContain("exactly ONE step line");
    expect(prompt).toContain("at most 12 steps");
    expect(prompt).toContain("# Platform rules (authoritative)\n\n1. Stay in /tmp.");
  });

  it("keeps a long transcript's opening (the goal) and its latest steps, within the bound", () => {
    const transcript = `goal: find the zen\n${"> list .\n".repeat(5000)}> done latest`;
    const bounded = boundTranscript(transcript, 2000);
    expect(bounded.length).toBeLessThanOrEqual(2000);
    expect(bounded.startsWith("goal: find the zen\n")).toBe(true);
    expect(bounded.endsWith("> done latest")).toBe(true);
    expect(bounded).toContain("[… earlier steps omitted …]");
    expect(userMessage("goal: x\n")).toContain("goal: x");
  });
});

describe("the key never appears in what the endpoint says", () => {
  it.each([
    ["the key itself", "echo tabkey-CANARY-0123456789 back", "echo [redacted] back"],
    ["an Anthropic-shaped key", "bad key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt", "bad key [redacted]"],
    ["an OpenAI-shaped key", "Incorrect API key provided: sk-proj-AbCdEfGhIjKlMnOp", "Incorrect API key provided: [redacted]"],
  ])("redacts %s", (_name, text, redacted) => {
    expect(redactSecret(text, "tabkey-CANARY-0123456789")).toBe(redacted);
  });
});
