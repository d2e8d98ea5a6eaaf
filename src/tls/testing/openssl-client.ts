/** The `openssl s_client` arguments both interop suites start from: connect to our server on 127.0.0.1, verify its chain against `caFile`. */
export function sClientArgs(port: number, host: string, caFile: string): string[] {
  return ["s_client", "-connect", `127.0.0.1:${port}`, "-servername", host, "-CAfile", caFile, "-verify_return_error"];
}
