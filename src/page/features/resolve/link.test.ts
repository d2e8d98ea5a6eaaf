import { describe, expect, it } from "vitest";
import { harnessFromHref, shareQuery } from "./link";

// A harness (docs/decisions/0001-harness-resources-by-url-and-path.md) is opened by URL with its `#sha256=` pin; the
// page link carries that URL in `?harness=`, and the pin must survive either spelling.
const PIN = "7c24e5c5721cb2b07336895c66d8ee0e10e32dae9fed6dad8504b0b45a5fccb5";
const URL_ = "https://raw.githubusercontent.com/example-org/agent-library/ff9c/harness/review.yaml";
const PAGE = "http://127.0.0.1:4411/";

describe("the harness a page link asks for (pinned URLs in ?harness=)", () => {
  it.each([
    ["an encoded link keeps its pin (what the share button produces)", `${PAGE}?harness=${encodeURIComponent(`${URL_}#sha256=${PIN}`)}`],
    ["an unencoded link gets its pin back from the page's fragment", `${PAGE}?harness=${URL_}#sha256=${PIN}`],
    ["only the pin's # encoded", `${PAGE}?harness=${URL_}%23sha256=${PIN}`],
    ["the harness after another parameter", `${PAGE}?fixtures=samples&harness=${encodeURIComponent(`${URL_}#sha256=${PIN}`)}`],
  ])("%s", (_, href) => {
    expect(harnessFromHref(href).harness).toBe(`${URL_}#sha256=${PIN}`);
  });

  it("parameters typed after an unencoded pin are still parameters", () => {
    const link = harnessFromHref(`${PAGE}?harness=${URL_}#sha256=${PIN}&fixtures=samples`);
    expect(link.harness).toBe(`${URL_}#sha256=${PIN}`);
    expect(link.params.get("fixtures")).toBe("samples");
  });

  it("an encoded link's other parameters are read from the query", () => {
    const link = harnessFromHref(`${PAGE}${shareQuery(`${URL_}#sha256=${PIN}`, { fixtures: "samples" })}`);
    expect(link.harness).toBe(`${URL_}#sha256=${PIN}`);
    expect(link.params.get("fixtures")).toBe("samples");
  });

  it.each([
    ["no harness parameter", `${PAGE}?fixtures=samples`, null],
    ["an empty harness parameter", `${PAGE}?harness=`, null],
    ["the bundled sample", `${PAGE}?harness=sample`, "sample"],
    ["an unpinned URL stays unpinned (the resolver refuses it as hash-missing)", `${PAGE}?harness=${encodeURIComponent(URL_)}`, URL_],
    ["a fragment that is not a pin is not glued on", `${PAGE}?harness=${URL_}#section`, URL_],
    ["a plus in the URL is a plus, not a space", `${PAGE}?harness=https://x.example/a+b.yaml`, "https://x.example/a+b.yaml"],
    ["a stray % is kept as typed", `${PAGE}?harness=https://x.example/%zz.yaml`, "https://x.example/%zz.yaml"],
  ])("%s", (_, href, expected) => {
    expect(harnessFromHref(href).harness).toBe(expected);
  });

  it("the share query encodes the pin's # so it stays inside the query", () => {
    expect(shareQuery(`${URL_}#sha256=${PIN}`)).toBe(`?harness=${encodeURIComponent(URL_)}%23sha256%3D${PIN}`);
    expect(new URL(`${PAGE}${shareQuery(`${URL_}#sha256=${PIN}`)}`).hash).toBe("");
  });
});
