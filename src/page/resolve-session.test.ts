import { describe, expect, it } from "vitest";
import { bundleRequestUrl } from "./resolve-session";

// The page reads the sample bundle's recordings (src/resolver README, "Fixtures") from its own
// origin; a recording of a URL with a query is a file named `…__query=…`.
describe("bundle file URLs as static servers find them (recorded responses, src/resolver README)", () => {
  it.each([
    [
      "a recorded query's = is sent unescaped",
      "http://127.0.0.1/samples/fixtures/api.github.com/repos/o/r/git/trees/c__query%3Drecursive%3D1",
      "http://127.0.0.1/samples/fixtures/api.github.com/repos/o/r/git/trees/c__query=recursive=1",
    ],
    [
      "a host's port colon is sent unescaped",
      "http://127.0.0.1/samples/fixtures/x.example%3A8443/a",
      "http://127.0.0.1/samples/fixtures/x.example:8443/a",
    ],
    [
      "a slash inside a segment stays escaped",
      "http://127.0.0.1/samples/fixtures/h/a__query=p%2Fq",
      "http://127.0.0.1/samples/fixtures/h/a__query=p%2Fq",
    ],
    ["an escaped space or percent stays escaped", "http://127.0.0.1/samples/a%20b%25c", "http://127.0.0.1/samples/a%20b%25c"],
  ])("%s", (_, url, expected) => {
    expect(bundleRequestUrl(url)).toBe(expected);
  });
});
