import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureFetch } from "./fixture-fetch.node";

// The shared `--fixtures DIR` layout: https://HOST/PATH?QUERY → DIR/HOST/PATH?QUERY.
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fixtures-"));
  const put = async (rel: string, body: string) => {
    await mkdir(join(dir, rel, ".."), { recursive: true });
    await writeFile(join(dir, rel), body);
  };
  await put("api.example.com/repos/o/r/_index", '{"default_branch":"main"}');
  await put("api.example.com/repos/o/r/commits/main", '{"sha":"x"}');
  await put("api.example.com/search__query=q=a&limit=1", "resolver spelling");
  await put("api.example.com/slash__query=p=a%2Fb", "slash encoded");
  await put("api.example.com/plain?q=a", "verbatim");
  await put("api.example.com/other%3Fq=b", "encoded");
  await put("api.example.com/teapot", "short and stout");
  await put("api.example.com/teapot.status", "418\n");
  await put("api.example.com/teapot.headers.json", '{"content-type":"text/x-teapot"}');
  await put("api.example.com/moved.status", "301");
  await put("api.example.com/moved.headers.json", '{"location":"https://elsewhere.example/"}');
  await put("api.example.com/dir/_index", "a directory");
  await put("secret.txt", "outside any host");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a fetch answered from recorded files", () => {
  it.each([
    ["a plain path", "https://api.example.com/repos/o/r/commits/main", 200, '{"sha":"x"}'],
    ["a path that is also a directory answers from _index", "https://api.example.com/repos/o/r", 200, '{"default_branch":"main"}'],
    ["a trailing slash answers from _index", "https://api.example.com/dir/", 200, "a directory"],
    ["a query as __query=QUERY (the resolver's spelling)", "https://api.example.com/search?q=a&limit=1", 200, "resolver spelling"],
    ["a / in the query as %2F", "https://api.example.com/slash?p=a/b", 200, "slash encoded"],
    ["a query kept verbatim after ?", "https://api.example.com/plain?q=a", 200, "verbatim"],
    ["a query with ? percent-encoded as %3F", "https://api.example.com/other?q=b", 200, "encoded"],
    ["a .status sibling sets the status", "https://api.example.com/teapot", 418, "short and stout"],
    ["a .status with no body answers an empty body", "https://api.example.com/moved", 301, ""],
    ["no file is a 404", "https://api.example.com/missing", 404, "no fixture for https://api.example.com/missing\n"],
    [
      "a different query is a 404",
      "https://api.example.com/search?q=b&limit=1",
      404,
      "no fixture for https://api.example.com/search?q=b&limit=1\n",
    ],
    [
      "dot segments cannot climb out of the host",
      "https://api.example.com/../secret.txt",
      404,
      "no fixture for https://api.example.com/../secret.txt\n",
    ],
  ])("%s", async (_name, url, status, body) => {
    const fetch = createFixtureFetch(dir);
    const response = await fetch(url);
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
  });

  it("a .headers.json sibling sets the headers, and every request is recorded", async () => {
    const fetch = createFixtureFetch(dir);
    const response = await fetch("https://api.example.com/teapot");
    expect(response.headers.get("content-type")).toBe("text/x-teapot");
    expect(fetch.requests).toEqual(["https://api.example.com/teapot"]);
  });
});
