/**
 * The lessons shipped with the project (lessons/*.yaml at the repository's root), each its own
 * small chunk loaded when first asked for: none is part of the first screen's script.
 */
const FILES = import.meta.glob<string>("/lessons/*.yaml", { query: "?raw", import: "default" });

const nameOf = (path: string) => path.replace(/^.*\//, "").replace(/\.yaml$/, "");

/** The shipped lessons' names, in the curriculum's order (file names sort by their number prefix). */
export function bundledLessonNames(): string[] {
  return Object.keys(FILES).map(nameOf).sort();
}

export async function bundledLessonText(name: string): Promise<string | null> {
  const entry = Object.entries(FILES).find(([path]) => nameOf(path) === name);
  return entry ? entry[1]() : null;
}
