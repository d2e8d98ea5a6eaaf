import { z } from "zod";
import type { ModelProvider } from "./settings";

/**
 * A model API's answer, parsed with zod: the text of the reply, or why there is none. The
 * answer is hostile data; what is quoted from it is one line and bounded.
 */

const AnthropicMessage = z.object({
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
});
const OpenAiCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});
/** Both providers describe a failure as `{error: {message, type?}}`. */
const ApiError = z.object({ error: z.object({ message: z.string(), type: z.string().nullish() }) });

export type ModelAnswer = { ok: true; text: string } | { ok: false; code: "bad-status" | "unparsable"; reason: string };

/** One line of hostile text, at most `max` characters. */
export function quoteLine(text: string, max = 160): string {
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export function parseModelAnswer(provider: ModelProvider, status: number, body: string): ModelAnswer {
  const json = parseJson(body);
  if (status < 200 || status > 299) {
    const error = ApiError.safeParse(json);
    const said = error.success
      ? `${error.data.error.type ? `${error.data.error.type}: ` : ""}${error.data.error.message}`
      : body.trim() === ""
        ? "no body"
        : body;
    return { ok: false, code: "bad-status", reason: `the model API answered ${status}: ${quoteLine(said)}` };
  }
  if (json === undefined) return { ok: false, code: "unparsable", reason: `the model API's answer is not JSON: ${quoteLine(body)}` };
  if (provider === "anthropic") {
    const message = AnthropicMessage.safeParse(json);
    if (!message.success) return { ok: false, code: "unparsable", reason: "the answer is not a Messages API message (no content[])" };
    const text = message.data.content
      .filter((block) => block.type === "text")
      .map((block) => block.text ?? "")
      .join("");
    return { ok: true, text };
  }
  const completion = OpenAiCompletion.safeParse(json);
  if (!completion.success) return { ok: false, code: "unparsable", reason: "the answer is not a chat completion (no choices[0].message)" };
  return { ok: true, text: completion.data.choices[0]?.message.content ?? "" };
}
