import type { ContentKind } from "./content";
import type { DirectoryKind } from "./obtain";
import type { Harness } from "./schema";

/**
 * Where relative references resolve: a local `.fullsend` base, a URL directory (a harness or
 * base fetched by URL), or a remote skill's own directory URL (`https://github.com/O/R/tree/REF/PATH`,
 * whose relative dependencies are siblings under the same pinned tree).
 */
export type Origin = { kind: "local"; base: string } | { kind: "remote"; base: string } | { kind: "tree"; base: string };

/** How a field is treated (docs/decisions/0001-harness-resources-by-url-and-path.md): declarative (may be a URL) or executable/config (local only). */
export interface FieldSpec {
  executable: boolean;
  shape: "file" | "directory";
  content: ContentKind;
  directory?: DirectoryKind;
}

const DECLARATIVE_FILE = (content: ContentKind): FieldSpec => ({ executable: false, shape: "file", content });
const LOCAL_ONLY = (content: ContentKind): FieldSpec => ({ executable: true, shape: "file", content });

/** One reference to resolve, with the layer (harness or base) it came from. */
export interface FieldRef {
  field: string;
  ref: string;
  spec: FieldSpec;
  origin: Origin;
  /** Where to write the resolved location in the output harness. */
  path: (string | number)[];
}

/** A harness layer: the child first, then its bases in order. */
export interface Layer {
  doc: Harness;
  origin: Origin;
}

export function specForDependency(ref: string): FieldSpec {
  if (/^https:\/\/github\.com\/[^/]+\/[^/]+\/tree\//i.test(ref) || !/\.[A-Za-z0-9]+$/.test(ref.split("#")[0]!)) {
    return { executable: false, shape: "directory", content: "bytes", directory: "skill" };
  }
  const path = ref.split("#")[0]!.toLowerCase();
  if (path.endsWith(".yaml") || path.endsWith(".yml")) return DECLARATIVE_FILE("yaml-mapping");
  if (path.endsWith(".json")) return DECLARATIVE_FILE("json");
  if (path.endsWith(".md")) return DECLARATIVE_FILE("markdown");
  return DECLARATIVE_FILE("bytes");
}

/** The name a skill reference is de-duplicated by: the last segment of its path, pin and slashes removed. */
export function skillBasename(ref: string): string {
  const bare = ref.split("#")[0]!.replace(/\/+$/, "");
  return bare.slice(bare.lastIndexOf("/") + 1);
}

/**
 * Merges `base:` layers (the one way scripts may come from a URL): a child's top-level field replaces
 * its base's, except `skills`, which are concatenated (base first) and de-duplicated by
 * basename with the child's entry taking the base's place; `validation_loop` merges one level
 * deep; each value remembers the layer it came from so its relative references resolve
 * against that layer's origin (`skills[i]` per entry).
 */
export function mergeLayers(layers: readonly Layer[]): { merged: Record<string, unknown>; origins: Map<string, Origin> } {
  const merged: Record<string, unknown> = {};
  const origins = new Map<string, Origin>();
  const skills: { ref: string; origin: Origin }[] = [];
  for (const layer of [...layers].reverse()) {
    for (const [key, value] of Object.entries(layer.doc)) {
      if (key === "base" || value === undefined) continue;
      if (key === "skills" && Array.isArray(value)) {
        for (const ref of value as string[]) {
          const at = skills.findIndex((s) => skillBasename(s.ref) === skillBasename(ref));
          if (at >= 0) skills[at] = { ref, origin: layer.origin };
          else skills.push({ ref, origin: layer.origin });
        }
        merged.skills = skills.map((s) => s.ref);
        origins.set("skills", layer.origin);
        continue;
      }
      if (key === "validation_loop" && typeof value === "object" && value !== null) {
        const into = (merged.validation_loop ?? {}) as Record<string, unknown>;
        for (const [sub, subValue] of Object.entries(value)) {
          into[sub] = subValue;
          origins.set(`validation_loop.${sub}`, layer.origin);
        }
        merged.validation_loop = into;
        continue;
      }
      if (key === "allowed_remote_resources" && Array.isArray(value)) {
        merged[key] = [...new Set([...((merged[key] as string[] | undefined) ?? []), ...value])];
        continue;
      }
      merged[key] = value;
      origins.set(key, layer.origin);
    }
  }
  for (const [i, s] of skills.entries()) origins.set(`skills[${i}]`, s.origin);
  return { merged, origins };
}

/** The resource references of a merged harness, in the order the Resolver panel lists them. */
export function fieldRefs(merged: Harness, origins: Map<string, Origin>, fallback: Origin): FieldRef[] {
  const out: FieldRef[] = [];
  const origin = (key: string) => origins.get(key) ?? fallback;
  const one = (key: keyof Harness, spec: FieldSpec) => {
    const value = merged[key];
    if (typeof value === "string") out.push({ field: key, ref: value, spec, origin: origin(key), path: [key] });
  };
  one("agent", DECLARATIVE_FILE("markdown"));
  one("policy", DECLARATIVE_FILE("yaml-mapping"));
  for (const [i, ref] of (merged.skills ?? []).entries()) {
    out.push({
      field: `skills[${i}]`,
      ref,
      spec: { executable: false, shape: "directory", content: "bytes", directory: "skill" },
      origin: origins.get(`skills[${i}]`) ?? origin("skills"),
      path: ["skills", i],
    });
  }
  for (const [i, ref] of (merged.plugins ?? []).entries()) {
    out.push({
      field: `plugins[${i}]`,
      ref,
      spec: { executable: false, shape: "directory", content: "bytes", directory: "plugin" },
      origin: origin("plugins"),
      path: ["plugins", i],
    });
  }
  one("pre_script", LOCAL_ONLY("bytes"));
  one("post_script", LOCAL_ONLY("bytes"));
  one("agent_input", LOCAL_ONLY("bytes"));
  const loop = merged.validation_loop;
  if (loop?.script !== undefined)
    out.push({
      field: "validation_loop.script",
      ref: loop.script,
      spec: LOCAL_ONLY("bytes"),
      origin: origin("validation_loop.script"),
      path: ["validation_loop", "script"],
    });
  if (loop?.schema !== undefined)
    out.push({
      field: "validation_loop.schema",
      ref: loop.schema,
      spec: LOCAL_ONLY("json"),
      origin: origin("validation_loop.schema"),
      path: ["validation_loop", "schema"],
    });
  for (const [i, server] of (merged.api_servers ?? []).entries()) {
    if (server.script === undefined) continue;
    out.push({
      field: `api_servers[${i}].script`,
      ref: server.script,
      spec: LOCAL_ONLY("bytes"),
      origin: origin("api_servers"),
      path: ["api_servers", i, "script"],
    });
  }
  for (const [i, entry] of (merged.host_files ?? []).entries()) {
    out.push({
      field: `host_files[${i}].src`,
      ref: entry.src,
      spec: LOCAL_ONLY("bytes"),
      origin: origin("host_files"),
      path: ["host_files", i, "src"],
    });
  }
  return out;
}

/** Writes `value` at `path` in a plain-object tree (the output harness is a deep copy). */
export function setAt(target: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}
