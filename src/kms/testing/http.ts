import { utf8 } from "../../bytes";
import type { EgressProxy } from "../../proxy";
import { exchangeOnce } from "../../proxy/testing/memory";

/** One HTTP/1.1 request through the proxy over an in-memory connection; the parsed response. */
export async function exchange(
  proxy: EgressProxy,
  request: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { status, headers, body } = await exchangeOnce(proxy, utf8(request));
  return { status, headers, body };
}

/** `POST path` to the proxy's own host with a JSON body and optional extra headers. */
export function postRequest(path: string, body: unknown, headers: Record<string, string> = {}): string {
  const bytes = utf8(typeof body === "string" ? body : JSON.stringify(body));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `POST ${path} HTTP/1.1\r\nHost: 10.0.2.2:3128\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n${extra}\r\n${new TextDecoder().decode(bytes)}`;
}
