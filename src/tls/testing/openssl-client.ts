import { spawn } from "node:child_process";

/** The `openssl s_client` arguments both interop suites start from: connect to our server on 127.0.0.1, verify its chain against `caFile`. */
export function sClientArgs(port: number, host: string, caFile: string): string[] {
  return ["s_client", "-connect", `127.0.0.1:${port}`, "-servername", host, "-CAfile", caFile, "-verify_return_error"];
}

/**
 * Runs `openssl` with `args` (an s_client), sends `line` once the chain was verified, and quits
 * once it came back (an echo server; a session ticket, sent before any data, has then been read
 * too). Resolves to all s_client printed, stdout and stderr.
 */
export function sClientEcho(args: string[], line: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("openssl", args);
    let out = "";
    let sent = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!sent && out.includes("Verify return code")) {
        sent = true;
        child.stdin.write(`${line}\n`);
      }
      if (sent && out.includes(line)) child.stdin.end("Q\n");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("close", () => resolve(out));
  });
}
