import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../../platform";
import { readCommandLineOrReason } from "../args";
import { untilShutdownSignal } from "../shutdown-signal";
import { checkPublishBase, type PublishedLesson, publishLesson } from "./publish-plan";
import { serveLessonFolder } from "./serve";

export const LESSON_PUBLISH_USAGE = `npx tab lesson publish DIR --base https://HOST/PATH/ [--playground URL] [--embedder ORIGIN]
                          [--serve PORT [--cert FILE --key FILE]]

  for every lesson (*.yaml) in DIR: its pinned URL (BASE + file + #sha256=…), the playground
  link that opens it, and a ready 800×500 embed snippet; printed, and written to
  DIR/published.json and DIR/published.html. Upload DIR to BASE as it is: any change to a
  lesson changes its pin. BASE must be https, a public host name (not an IP address), a folder.
  --playground URL   the playground deployment the links open (default https://PLAYGROUND-HOST/)
  --embedder ORIGIN  your docs site's origin: the embed posts its messages only to it
  --serve PORT       then serve DIR on 127.0.0.1:PORT with CORS, for trying it out (HTTPS with
                     --cert/--key PEM files; a lesson host must be HTTPS with a trusted certificate)
  exit 0 all published, 1 a lesson invalid, 64 usage.`;

interface PublishArgs {
  dir: string;
  base: string;
  playground: string;
  embedder: string | null;
  serve: { port: number; cert: string | null; key: string | null } | null;
}

function readArgs(args: readonly string[]): { ok: true; value: PublishArgs } | { ok: false; reason: string } {
  const got = readCommandLineOrReason({
    args: [...args],
    options: {
      base: { type: "string" },
      playground: { type: "string" },
      embedder: { type: "string" },
      serve: { type: "string" },
      cert: { type: "string" },
      key: { type: "string" },
    },
    allowPositionals: true,
  });
  if (!got.ok) return got;
  const positional = got.read.positionals;
  const { base, playground, embedder: embedderText, serve: servePort, cert = null, key = null } = got.read.values;
  if (positional.length !== 1) return { ok: false, reason: "name one lesson folder" };
  if (base === undefined) return { ok: false, reason: "--base https://HOST/PATH/ is required (where DIR will be served)" };
  const checked = checkPublishBase(base);
  if (!checked.ok) return checked;
  let embedder: string | null = null;
  if (embedderText !== undefined) {
    try {
      const url = new URL(embedderText);
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error();
      embedder = url.origin;
    } catch {
      return { ok: false, reason: `--embedder ${embedderText} is not an origin like https://docs.example` };
    }
  }
  const port = servePort === undefined ? null : Number(servePort);
  if (port !== null && (!Number.isInteger(port) || port < 0 || port > 65535)) return { ok: false, reason: "--serve takes a port number" };
  if ((cert === null) !== (key === null)) return { ok: false, reason: "--cert and --key go together" };
  return {
    ok: true,
    value: {
      dir: positional[0]!,
      base: checked.base,
      playground: playground ?? "https://PLAYGROUND-HOST/",
      embedder,
      serve: port === null ? null : { port, cert, key },
    },
  };
}

const html = (lessons: PublishedLesson[]) =>
  `<!doctype html><meta charset="utf-8"><title>Published lessons</title>\n${lessons
    .map((l) => `<h2>${l.title.replace(/</g, "&lt;")}</h2>\n${l.embed}`)
    .join("\n")}\n`;

export async function runLessonPublish(args: readonly string[]): Promise<number> {
  const read = readArgs(args);
  if (!read.ok) {
    process.stderr.write(`tab lesson publish: ${read.reason}\n\nusage: ${LESSON_PUBLISH_USAGE}\n`);
    return 64;
  }
  const { dir, base, playground, embedder, serve } = read.value;
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort();
  } catch (error) {
    process.stderr.write(`tab lesson publish: ${dir}: ${messageOf(error)}\n`);
    return 64;
  }
  const published: PublishedLesson[] = [];
  let failed = false;
  for (const file of files) {
    const planned = await publishLesson(file, readFileSync(join(dir, file), "utf8"), { base, playground, embedder });
    if (!planned.ok) {
      process.stderr.write(`${join(dir, file)}: not published: ${planned.reason}\n`);
      failed = true;
      continue;
    }
    published.push(planned.lesson);
    process.stdout.write(
      `${planned.lesson.title}\n  pinned  ${planned.lesson.pinnedUrl}\n  open    ${planned.lesson.link}\n  embed   ${planned.lesson.embed}\n\n`,
    );
  }
  writeFileSync(join(dir, "published.json"), `${JSON.stringify({ base, playground, embedder, lessons: published }, null, 2)}\n`);
  writeFileSync(join(dir, "published.html"), html(published));
  process.stdout.write(
    `${published.length} lesson(s) → ${join(dir, "published.json")}, ${join(dir, "published.html")}\n` +
      `Add ${base} to the deployment's tab.config.json "lessonOrigins" (README, "Publishing").\n`,
  );
  if (serve === null) return failed ? 1 : 0;
  const tls =
    serve.cert !== null && serve.key !== null
      ? { cert: readFileSync(serve.cert, "utf8"), key: readFileSync(serve.key, "utf8") }
      : undefined;
  const server = await serveLessonFolder({ dir, port: serve.port, ...(tls ? { tls } : {}) });
  process.stdout.write(`serving ${dir} with CORS at ${tls ? "https" : "http"}://127.0.0.1:${server.port}/ (Ctrl-C stops)\n`);
  await untilShutdownSignal();
  await server.close();
  return failed ? 1 : 0;
}
