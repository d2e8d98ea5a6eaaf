/**
 * The model key never appears in anything the endpoint says (a reason for the log, an answer
 * for the guest), even when an upstream echoes it: every occurrence of the key, and every
 * string shaped like a provider key, becomes `[redacted]`.
 */

const KEY_SHAPES = /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g;

export function redactSecret(text: string, secret: string): string {
  const withoutSecret = secret.length >= 4 ? text.split(secret).join("[redacted]") : text;
  return withoutSecret.replace(KEY_SHAPES, "[redacted]");
}
