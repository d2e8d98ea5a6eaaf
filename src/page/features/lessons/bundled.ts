/**
 * The lessons shipped with the project (lessons/*.yaml at the repository's root), each its own
 * small chunk loaded when first asked for: none is part of the first screen's script.
 */
const FILES = import.meta.glob<string>("/lessons/*.yaml", { query: "?raw", import: "default" });

/** One entry of lessons/index.json, which src/cli/lesson/curriculum.test.ts checks against every lesson file. */
export interface ListedLesson {
  name: string;
  title: string;
  steps: number;
}

const nameOf = (path: string) => path.replace(/^.*\//, "").replace(/\.yaml$/, "");

/**
 * The shipped lessons as lessons/index.json lists them: their titles and step counts for the
 * index, without parsing every lesson's YAML when the page starts (a tenth of a second of its
 * main thread, just after the guest's first prompt).
 */
export async function bundledLessonIndex(): Promise<ListedLesson[]> {
  const index = (await import("../../../../lessons/index.json")).default;
  return index.lessons.map(({ name, title, steps }) => ({ name, title, steps }));
}

export async function bundledLessonText(name: string): Promise<string | null> {
  const entry = Object.entries(FILES).find(([path]) => nameOf(path) === name);
  return entry ? entry[1]() : null;
}
