import { LineCounter, parseDocument } from "yaml";
import { Policy } from "./schema";

/**
 * Loading a policy file (load, decide and classify are separate). YAML and JSON
 * both go through the `yaml` parser (JSON is YAML 1.2), so every error can name its line;
 * zod then validates and normalises. A policy that does not validate is never half-applied.
 */

export type PolicyLoad = { ok: true; policy: Policy } | { ok: false; errors: string[] };

export function parsePolicy(text: string): PolicyLoad {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => `line ${lineCounter.linePos(e.pos[0]).line}: ${e.message.split("\n")[0]}`),
    };
  }
  const parsed = Policy.safeParse(doc.toJS());
  if (parsed.success) return { ok: true, policy: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
      const field = path.length === 0 ? "(policy)" : path.join(".");
      return `line ${lineOf(doc, lineCounter, path)}, ${field}: ${issue.message}`;
    }),
  };
}

/** The value, or throws an Error listing every problem (for the CLI and fixed defaults). */
export function loadPolicy(text: string, source = "policy"): Policy {
  const result = parsePolicy(text);
  if (result.ok) return result.policy;
  throw new Error(`${source} is not a valid policy:\n  ${result.errors.join("\n  ")}`);
}

type Doc = ReturnType<typeof parseDocument>;

// The deepest node that exists along the path: a missing field is reported where its parent is.
function lineOf(doc: Doc, lines: LineCounter, path: (string | number)[]): number | string {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (node && typeof node === "object" && "range" in node && Array.isArray(node.range)) {
      const offset = node.range[0];
      if (typeof offset === "number") return lines.linePos(offset).line;
    }
  }
  return "?";
}
