import { describe, expect, it } from "vitest";
import { bundledLessonIndex, bundledLessonText } from "./bundled";
import { loadLessonText } from "./lesson-core";
import { lessonFromText } from "./source";

/** The shipped lessons' names, in the curriculum's order (file names sort by their number prefix). */
const shippedNames = Object.keys(import.meta.glob("/lessons/*.yaml"))
  .map((path) => path.replace(/^.*\//, "").replace(/\.yaml$/, ""))
  .sort();

describe("the page's index of shipped lessons", () => {
  it("lists every shipped lesson once, in the curriculum's order, with the title and step count its file has", async () => {
    const index = await bundledLessonIndex();
    expect(shippedNames.length).toBeGreaterThan(0);
    expect(index.map((l) => l.name)).toEqual(shippedNames);
    for (const listed of index) {
      const text = await bundledLessonText(listed.name);
      expect(text).not.toBeNull();
      const parsed = loadLessonText(await lessonFromText(text ?? "", "bundled", listed.name));
      if (!parsed.ok) throw new Error(`${listed.name}: ${parsed.reason}`);
      expect({ title: listed.title, steps: listed.steps }).toEqual({ title: parsed.lesson.title, steps: parsed.lesson.steps.length });
    }
  });
});
