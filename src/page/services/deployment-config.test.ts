import { describe, expect, it } from "vitest";
import { createEventLog } from "../../log";
import { defaultAllowlist, parseDeploymentConfig, readDeploymentConfig } from "./deployment-config";

const BUNDLED = ["https://github.com/example-org/agent-library/"];

describe("a deployment's own configuration (tab.config.json)", () => {
  it("a missing file means the defaults, with nothing said", () => {
    expect(parseDeploymentConfig(null)).toEqual({ config: null, problem: null });
    expect(defaultAllowlist(null, BUNDLED)).toEqual(BUNDLED);
  });

  it("its lesson origins join the default allowlist; its own allowlist replaces the bundled one", () => {
    const read = parseDeploymentConfig(JSON.stringify({ version: 1, lessonOrigins: ["https://docs.example/lessons/"] }));
    expect(read.problem).toBeNull();
    expect(defaultAllowlist(read.config, BUNDLED)).toEqual([...BUNDLED, "https://docs.example/lessons/"]);
    const own = parseDeploymentConfig(
      JSON.stringify({ version: 1, orgAllowlist: ["https://github.com/acme/"], lessonOrigins: ["https://github.com/acme/"] }),
    );
    expect(defaultAllowlist(own.config, BUNDLED)).toEqual(["https://github.com/acme/"]);
  });

  it.each([
    ["an IP address", "https://93.184.216.34/lessons/"],
    ["plain http", "http://docs.example/lessons/"],
    ["a private name", "https://localhost/lessons/"],
    ["a prefix that is no directory", "https://docs.example/lessons"],
  ])("a lesson origin that is %s is refused, and the whole file is ignored with a reason", (_what, entry) => {
    const read = parseDeploymentConfig(JSON.stringify({ version: 1, lessonOrigins: [entry] }));
    expect(read.config).toBeNull();
    expect(read.problem).toMatch(/^tab\.config\.json is not valid \(lessonOrigins\.0: .+\); the defaults are used$/);
  });

  it("a file that is not JSON, or names a setting it does not know, is ignored with a reason", () => {
    expect(parseDeploymentConfig("{").problem).toBe("tab.config.json is not JSON; the defaults are used");
    expect(parseDeploymentConfig(JSON.stringify({ version: 1, trustEverything: true })).problem).toContain("Unrecognized key");
  });

  it("is fetched beside the page; a 404 means the defaults, a bad file is a warning on the log", async () => {
    const asked: string[] = [];
    const log = createEventLog();
    const none = await readDeploymentConfig({
      pageHref: "https://play.example/tab/?embed=1",
      fetch: async (url) => {
        asked.push(url);
        return new Response("no", { status: 404 });
      },
      log,
    });
    expect(none).toBeNull();
    expect(asked).toEqual(["https://play.example/tab/tab.config.json"]);
    expect(await readDeploymentConfig({ pageHref: "https://play.example/", fetch: async () => new Response("[]"), log })).toBeNull();
    expect(log.ofKind("note").map((e) => e.level)).toEqual(["warning"]);
  });
});
