import { describe, expect, it } from "vitest";
import { createLessonMessenger, embeddingParent, MESSAGE_SOURCE } from "./embed-messages";

describe("the embed's messages to its parent", () => {
  it("each message is tagged with its source and posted to the origin the link named", () => {
    const posted: [unknown, string][] = [];
    const post = createLessonMessenger({ postMessage: (m, o) => posted.push([m, o]) }, "https://docs.example");
    post({ type: "lesson.done", pin: "p", steps: 2 });
    expect(posted).toEqual([[{ source: MESSAGE_SOURCE, type: "lesson.done", pin: "p", steps: 2 }, "https://docs.example"]]);
  });
  it("a page that is not framed posts nothing", () => {
    const self = {};
    expect(embeddingParent({ parent: self, self })).toBeNull();
  });
  it("a parent that throws does not break the lesson", () => {
    const post = createLessonMessenger(
      {
        postMessage: () => {
          throw new Error("gone");
        },
      },
      "*",
    );
    expect(() => post({ type: "lesson.done", pin: "p", steps: 1 })).not.toThrow();
  });
});
