import { describe, expect, it } from "vitest";
import { harnessFromHref, proposedPrefixes, readPageLink, shareQuery } from "./link";

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

describe("the page's link, read once into typed fields", () => {
  it("reads every parameter a feature uses", () => {
    const link = readPageLink(
      `${PAGE}?harness=sample&run=1&fixtures=samples&embed=1&scenario=3&tour=1&boot=fresh&net=v86-fetch&relay=wss://r.example/` +
        `&policy=abc&policy-ref=ref&scenarios=served,agent&expect=e&allow-prefix=https://a.example/&allow-prefix=https://b.example/` +
        `&lesson=landlock-fs&step=2&embedder=https://docs.example#lesson-draft=QUJD`,
    );
    expect(link).toMatchObject({
      harness: "sample",
      run: true,
      fixtures: "samples",
      embed: "1",
      scenario: "3",
      tour: true,
      boot: "fresh",
      net: "v86-fetch",
      relay: "wss://r.example/",
      share: { policy: "abc", policyRef: "ref", scenarios: "served,agent", expect: "e" },
      allowPrefixes: ["https://a.example/", "https://b.example/"],
      lesson: "landlock-fs",
      step: "2",
      embedder: "https://docs.example",
      hash: "#lesson-draft=QUJD",
    });
  });

  it("a link without parameters asks for nothing", () => {
    expect(readPageLink(PAGE)).toMatchObject({
      harness: null,
      run: false,
      fixtures: null,
      embed: null,
      tour: false,
      boot: null,
      net: null,
      relay: null,
      allowPrefixes: [],
      lesson: null,
      hash: "",
    });
  });

  it("values outside a flag's vocabulary read as absent", () => {
    expect(readPageLink(`${PAGE}?run=yes&tour=0&boot=warm&net=other&fixtures=live`)).toMatchObject({
      run: false,
      tour: false,
      boot: null,
      net: null,
      fixtures: null,
    });
  });

  it("an embed parameter without a value is present, empty", () => {
    expect(readPageLink(`${PAGE}?embed`).embed).toBe("");
  });

  it("a parameter typed after an unencoded harness pin is read too", () => {
    expect(readPageLink(`${PAGE}?harness=${URL_}#sha256=${PIN}&run=1`).run).toBe(true);
  });

  it("with() sets and removes parameters and keeps the rest", () => {
    const link = readPageLink(`${PAGE}?harness=sample&boot=fresh#x`);
    expect(link.with({ boot: null })).toBe(`${PAGE}?harness=sample#x`);
    expect(readPageLink(link.with({ boot: "fresh", tour: "1" }))).toMatchObject({ boot: "fresh", tour: true, harness: "sample" });
  });

  it("proposed prefixes are each read once, empty ones skipped, at most 8", () => {
    expect(proposedPrefixes(["https://a/", " ", "https://a/"])).toEqual(["https://a/"]);
    expect(proposedPrefixes(Array.from({ length: 9 }, (_, i) => `https://h${i}/`))).toHaveLength(8);
  });
});
