import { describe, expect, it } from "vitest";
import { readPageLink } from "../../link";
import { draftHref, embedderOrigin, readLessonLink } from "./link-params";

const read = (query: string, hash = "") => readLessonLink(readPageLink(`https://tab.example/?${query}${hash}`));

describe("what the link asks of the lesson player", () => {
  it("a pinned https URL is a published lesson", () => {
    expect(read(`lesson=${encodeURIComponent("https://docs.example/a.yaml#sha256=ab")}`).request).toEqual({
      kind: "url",
      ref: "https://docs.example/a.yaml#sha256=ab",
    });
  });
  it("a pinned URL written unencoded gets its pin from the page's fragment", () => {
    const pin = "c".repeat(64);
    expect(read("lesson=https://docs.example/a.yaml", `#sha256=${pin}`).request).toEqual({
      kind: "url",
      ref: `https://docs.example/a.yaml#sha256=${pin}`,
    });
  });
  it("a plain name is a shipped lesson", () => {
    expect(read("lesson=landlock-fs").request).toEqual({ kind: "bundled", name: "landlock-fs" });
  });
  it("a draft in the fragment wins over the query", () => {
    expect(read("lesson=x", "#lesson-draft=abc").request).toEqual({ kind: "link", fragment: "abc" });
  });
  it("anything else is refused with a reason naming the value", () => {
    const r = read("lesson=http://x/a.yaml").request;
    expect(r.kind).toBe("invalid");
    expect(r.kind === "invalid" && r.reason).toContain("http://x/a.yaml");
  });
  it("no lesson asked is none", () => {
    expect(read("tour=1").request).toEqual({ kind: "none" });
  });
  it("step is 1-based in the link, 0-based inside; a bad step is ignored", () => {
    expect(read("lesson=a&step=3").step).toBe(2);
    expect(read("lesson=a&step=0").step).toBeNull();
    expect(read("lesson=a&step=x").step).toBeNull();
  });
  it("embed mode and the embedder's origin are read from the link", () => {
    const link = read("embed=1&lesson=a&embedder=https://docs.example/page");
    expect(link.embed).toBe(true);
    expect(link.embedder).toBe("https://docs.example");
  });
});

describe("the embedder's origin", () => {
  it.each([
    [null, "*"],
    ["http://localhost:3000/x", "http://localhost:3000"],
    ["https://docs.example/a/b?c", "https://docs.example"],
  ])("%s gives %s", (value, origin) => {
    expect(embedderOrigin(value)).toEqual({ embedder: origin, embedderProblem: null });
  });

  it.each([["javascript:alert(1)"], ["not a url"], ["docs.example"]])(
    "an embedder that is not an origin (%s) is refused with a reason, never widened to any parent",
    (value) => {
      const read = embedderOrigin(value);
      expect(read.embedder).toBeNull();
      expect(read.embedderProblem).toContain("is not an origin");
    },
  );
});

describe("a draft link", () => {
  it("carries the draft in the fragment and nothing in the query", () => {
    expect(draftHref("https://tab.example/?lesson=a&x=1#old", "QUJD")).toBe("https://tab.example/#lesson-draft=QUJD");
  });
});
