import { describe, expect, it } from "vitest";
import { bundledLessonIndex, bundledLessonNames, bundledLessonText } from "./bundled";
import { loadLessonText } from "./lesson-core";
import { lessonFromText } from "./source";

describe("the page's index of shipped lessons", () => {
  it("lists every shipped lesson once, in the curriculum's order, with the title and step count its file has", async () => {
    const index = await bundledLessonIndex();
    expect(index.map((l) => l.name)).toEqual(bundledLessonNames());
    for (const listed of index) {
      const text = await bundledLessonText(listed.name);
      expect(text).not.toBeNull();
      const parsed = loadLessonText(await lessonFromText(text ?? "", "bundled", listed.name));
      if (!parsed.ok) throw new Error(`${listed.name}: ${parsed.reason}`);
      expect({ title: listed.title, steps: listed.steps }).toEqual({ title: parsed.lesson.title, steps: parsed.lesson.steps.length });
    }
  });
});
