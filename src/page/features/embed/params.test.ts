import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../chrome/scenarios";
import { readPageLink } from "../../link";
import { embedExplanation, fullPlaygroundHref, ranExplanation, readEmbedRequest, validValues } from "./params";
import { EMBEDDABLE_ROWS } from "./rows";

// Embed mode for docs: `?embed=1&scenario=N` picks one row of the verdict table
// (docs/decisions/0005-the-page-is-the-only-network-client.md) by row number or id; anything else is explained.
const read = (query: string) => readEmbedRequest(readPageLink(`https://tab.example/?${query}`), EMBEDDABLE_ROWS);

describe("which scenario an embed link names (a row of the verdict table)", () => {
  it.each([
    ["a row number picks that row", "embed=1&scenario=4", "ip-literal"],
    ["the first row is row 1", "embed=1&scenario=1", "served"],
    ["row 7 is a row", "embed=1&scenario=7", "dns"],
    ["the last row is row 8, the vault's", "embed=1&scenario=8", "vault-push-read"],
    ["row 8 by its id", "embed=1&scenario=vault-push-read", "vault-push-read"],
    ["an id picks its row", "embed=1&scenario=ip-literal", "ip-literal"],
    ["an id is matched without regard to case", "embed=1&scenario=Landlock-Denied", "landlock-denied"],
    ["surrounding spaces are ignored", "embed=1&scenario=%206%20", "landlock-denied"],
    ["embed=true works like embed=1", "embed=true&scenario=2", "host-not-allowed"],
    ["a harness beside it does not matter", "embed=1&scenario=5&harness=https%3A%2F%2Fexample.org%2Fh.yaml", "sni-mismatch"],
  ])("%s", (_name, query, id) => {
    const request = read(query);
    expect(request.mode).toBe("scenario");
    if (request.mode === "scenario") expect(request.scenario.id).toBe(id);
  });

  it.each([
    ["without embed the page is the full playground", "scenario=4"],
    ["embed=0 is not embed mode", "embed=0&scenario=4"],
    ["a plain page URL is not embed mode", ""],
  ])("%s", (_name, query) => {
    expect(read(query)).toEqual({ mode: "off" });
  });

  it.each([
    ["a row past the table", "embed=1&scenario=99", 'scenario="99"'],
    ["row 0", "embed=1&scenario=0", 'scenario="0"'],
    ["an unknown id", "embed=1&scenario=teleport", 'scenario="teleport"'],
    ["a negative row", "embed=1&scenario=-1", 'scenario="-1"'],
    ["a fractional row", "embed=1&scenario=4.0", 'scenario="4.0"'],
    ["no scenario at all", "embed=1", "No scenario given"],
    ["an empty scenario", "embed=1&scenario=", "No scenario given"],
  ])("%s is refused with the valid values listed", (_name, query, echoed) => {
    const request = read(query);
    expect(request.mode).toBe("invalid");
    if (request.mode !== "invalid") return;
    expect(request.message).toContain(echoed);
    expect(request.message).toContain("1–8");
    expect(request.message).toContain("ip-literal");
  });

  it("every row of the verdict table in its design record is embeddable, by number and by id", () => {
    const record = readFileSync("docs/decisions/0005-the-page-is-the-only-network-client.md", "utf8");
    const rows = [...record.matchAll(/^\| (\d+) +\|/gm)].map((m) => Number(m[1]));
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) {
      const byNumber = read(`embed=1&scenario=${row}`);
      expect(byNumber.mode, `scenario=${row}`).toBe("scenario");
      if (byNumber.mode !== "scenario") continue;
      expect(byNumber.scenario.row).toBe(row);
      expect(read(`embed=1&scenario=${byNumber.scenario.id}`)).toEqual(byNumber);
    }
  });

  it("echoes a hostile value shortened and without control characters", () => {
    const request = read(`embed=1&scenario=${encodeURIComponent(`<img src=x>\u0007${"a".repeat(100)}`)}`);
    expect(request.mode).toBe("invalid");
    if (request.mode !== "invalid") return;
    expect(request.message).not.toContain("\u0007");
    expect(request.message).toContain('"<img src=x>aaaa');
    expect(request.message).not.toContain("a".repeat(50));
  });
});

describe("the embed bar's text and link", () => {
  it("lists every row number and id", () => {
    expect(validValues(SCENARIOS)).toBe(
      "a row number 1–7 or an id: served, host-not-allowed, redirect-other-host, ip-literal, sni-mismatch, landlock-denied, dns",
    );
  });

  it.each([
    ["row 4 is decided by the proxy", 4, "the proxy", "Verdict table, row 4"],
    ["row 5 is decided by the design", 5, "the design", "Verdict table, row 5"],
    ["row 6 is decided by the kernel", 6, "the kernel (Landlock)", "Verdict table, row 6"],
    ["row 8 is decided by the KMS", 8, "the KMS", "Verdict table, row 8"],
  ])("%s, and the paragraph cites its row of the verdict table", (_name, row, by, cite) => {
    const scenario = EMBEDDABLE_ROWS.find((s) => s.row === row);
    if (!scenario) throw new Error(`no row ${row}`);
    const text = embedExplanation(scenario);
    expect(text).toContain(`Decided by ${by}`);
    expect(text).toContain(`verdict ${scenario.expect.code}`);
    expect(text).toContain(cite);
  });

  it.each([
    ["drops embed and keeps the scenario", "https://tab.example/play/?embed=1&scenario=4", "https://tab.example/play/?scenario=4"],
    [
      "keeps the harness and its pin",
      "https://tab.example/?embed=1&scenario=2&harness=https%3A%2F%2Fh.example%2Fh.yaml%23sha256%3Dab",
      "https://tab.example/?scenario=2&harness=https%3A%2F%2Fh.example%2Fh.yaml%23sha256%3Dab",
    ],
    ["leaves a page without embed as it is", "http://127.0.0.1:4411/?scenario=4", "http://127.0.0.1:4411/?scenario=4"],
    [
      "never carries the relay's token",
      `https://tab.example/?embed=1&scenario=1&relay=${encodeURIComponent("wss://relay.example/?token=s3cret")}`,
      `https://tab.example/?scenario=1&relay=${encodeURIComponent("wss://relay.example/")}`,
    ],
  ])("the full-playground link %s", (_name, href, expected) => {
    expect(fullPlaygroundHref(href)).toBe(expected);
  });
});

describe("the explanation line after a run", () => {
  const row1 = SCENARIOS.find((s) => s.row === 1)!;
  it("says the row's real verdict and decider from the log when it differs from what the row expects (row 1 offline)", () => {
    const text = ranExplanation(row1, [{ code: "upstream-unreadable", by: "proxy" }]);
    expect(text).toContain("This run: upstream-unreadable by proxy, not what row 1 expects (served by proxy)");
    expect(text).not.toContain(row1.explanation);
  });
  it("says so, with the row's explanation, when the log has the expected verdict", () => {
    const row4 = SCENARIOS.find((s) => s.row === 4)!;
    expect(ranExplanation(row4, [{ code: "ip-literal", by: "proxy" }])).toBe(
      `This run: ip-literal by proxy, as row 4 expects. ${row4.explanation}`,
    );
  });
  it("says the log recorded nothing when it did not", () => {
    expect(ranExplanation(row1, [])).toContain("This run recorded no verdict on the log");
  });
});
