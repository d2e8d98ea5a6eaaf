import type { Command } from "../command";
import { LESSON_CHECK_USAGE } from "../lesson/check";
import { LESSON_PUBLISH_USAGE } from "../lesson/publish";

const USAGE = `npx tab lesson check|test|publish …

  check    validate lesson files (every issue with its line, column and field; pins)
  test     run lessons headless on the shipped guest and check every expect
  publish  pinned URLs and embed snippets for a folder of lessons; --serve tries it with CORS

${LESSON_CHECK_USAGE}

${LESSON_PUBLISH_USAGE}

npx tab lesson test --help   shows the test runner's options`;

export const command: Command = {
  summary: "lesson: check a lesson file, test it headless on the shipped guest, or publish a folder of them",
  usage: USAGE,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub === "check") return (await import("../lesson/check")).runLessonCheck(rest);
    if (sub === "publish") return (await import("../lesson/publish")).runLessonPublish(rest);
    if (sub === "test") {
      // Loaded only when asked for: it boots v86 under Node.
      const { runLessonTest, LESSON_TEST_USAGE } = await import("../lesson/test");
      if (rest.includes("--help") || rest.includes("-h")) {
        process.stdout.write(`usage: ${LESSON_TEST_USAGE}\n`);
        return 0;
      }
      return runLessonTest(rest);
    }
    process.stderr.write(`tab lesson: ${sub === undefined ? "name a subcommand" : `unknown subcommand "${sub}"`}\n\nusage: ${USAGE}\n`);
    return 64;
  },
};
