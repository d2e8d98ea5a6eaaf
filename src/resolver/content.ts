import { parse as parseYaml } from "yaml";
import { decodeUtf8Strict } from "../bytes";
import { messageOf } from "../platform";

/** What a field's bytes must parse as ("gate on the parse, not the status"). */
export type ContentKind = "yaml-mapping" | "json" | "markdown" | "bytes";

export type ContentCheck = { ok: true; value: unknown } | { ok: false; reason: string };

const YAML_OPTIONS = { maxAliasCount: 100, uniqueKeys: true } as const;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** YAML text parsed to a mapping, or why not. */
export function parseYamlMapping(text: string): ContentCheck {
  try {
    const value: unknown = parseYaml(text, YAML_OPTIONS);
    return isMapping(value) ? { ok: true, value } : { ok: false, reason: "YAML is not a mapping" };
  } catch (error) {
    return { ok: false, reason: `not YAML: ${messageOf(error).split("\n")[0]}` };
  }
}

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
}

/** Splits `---\n<yaml>\n---\n<body>`; null when there is no frontmatter block. */
export function parseFrontmatter(text: string): { ok: true; frontmatter: Frontmatter } | { ok: false; reason: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { ok: false, reason: "no --- frontmatter block at the top" };
  const data = parseYamlMapping(match[1]!);
  if (!data.ok) return { ok: false, reason: `frontmatter: ${data.reason}` };
  return { ok: true, frontmatter: { data: data.value as Record<string, unknown>, body: text.slice(match[0].length) } };
}

/**
 * Checks bytes against what the field asks for. Markdown must carry a YAML frontmatter
 * mapping (agents and SKILL.md both do), which also rejects an HTML error page served as 200.
 */
export function checkContent(bytes: Uint8Array, kind: ContentKind): ContentCheck {
  if (kind === "bytes") return { ok: true, value: bytes };
  const text = decodeUtf8Strict(bytes);
  if (text === null) return { ok: false, reason: "not UTF-8 text" };
  if (kind === "yaml-mapping") return parseYamlMapping(text);
  if (kind === "json") {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      return { ok: false, reason: `not JSON: ${messageOf(error)}` };
    }
  }
  const fm = parseFrontmatter(text);
  return fm.ok ? { ok: true, value: fm.frontmatter } : fm;
}
