import { describe, expect, it } from "vitest";
import { createHttpLocalFiles, encodePathSegment } from "./index";

// The page reads the sample bundle's recordings (src/resolver/README.md, "Fixtures") from its
// own origin; a recording of a URL with a query is a file named `…__query=…`.
describe("bundle file URLs as static servers find them (recorded responses)", () => {
  it.each([
    ["a recorded query's = is sent unescaped", "c__query=recursive=1", "c__query=recursive=1"],
    ["a host's port colon is sent unescaped", "x.example:8443", "x.example:8443"],
    ["a slash inside a segment stays escaped", "a__query=p/q", "a__query=p%2Fq"],
    ["an escaped space or percent stays escaped", "a b%c", "a%20b%25c"],
  ])("%s", (_, segment, expected) => {
    expect(encodePathSegment(segment)).toBe(expected);
  });

  it("createHttpLocalFiles asks for a recorded query file by its real name", async () => {
    const asked: string[] = [];
    const local = createHttpLocalFiles({
      root: "http://127.0.0.1/samples/",
      files: ["/fixtures/api.github.com/repos/o/r/git/trees/c__query=recursive=1"],
      fetch: async (url) => {
        asked.push(url);
        return new Response("{}");
      },
    });
    await local.read("/fixtures/api.github.com/repos/o/r/git/trees/c__query=recursive=1");
    expect(asked).toEqual(["http://127.0.0.1/samples/fixtures/api.github.com/repos/o/r/git/trees/c__query=recursive=1"]);
  });
});
