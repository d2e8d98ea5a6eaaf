import { parseDocument } from "yaml";
import type { z } from "zod";
import { messageOf } from "../../platform";

/**
 * Another proxy's YAML file, read the one careful way every importer needs: duplicate keys and
 * syntax errors named, an alias bomb (a billion laughs) refused by name rather than expanded,
 * then checked against the format's schema. `what` names the file's root in a schema issue.
 */
export function readYamlAs<T>(text: string, schema: z.ZodType<T>, what: string): { ok: true; value: T } | { ok: false; errors: string[] } {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return { ok: false, errors: doc.errors.map((e) => e.message.split("\n")[0] ?? "") };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [messageOf(error)] };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join(".") || `(${what})`}: ${i.message}`) };
  return { ok: true, value: parsed.data };
}
