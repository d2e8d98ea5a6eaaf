import { concatBytes, utf8 } from "../../bytes";
import type { EgressProxy } from "../../proxy";

/** One HTTP/1.1 request through the proxy over an in-memory connection; the raw response. */
export async function exchange(
  proxy: EgressProxy,
  request: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const done = proxy.handle({ readable: up.readable, writable: down.writable });
  const writer = up.writable.getWriter();
  await writer.write(utf8(request));
  await writer.close();
  let received: Uint8Array = new Uint8Array(0);
  const reader = down.readable.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    received = concatBytes(received, value);
  }
  await done;
  const text = new TextDecoder().decode(received);
  const split = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = text.slice(0, split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: text.slice(split + 4) };
}

/** `POST path` to the proxy's own host with a JSON body and optional extra headers. */
export function postRequest(path: string, body: unknown, headers: Record<string, string> = {}): string {
  const bytes = utf8(typeof body === "string" ? body : JSON.stringify(body));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `POST ${path} HTTP/1.1\r\nHost: 10.0.2.2:3128\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n${extra}\r\n${new TextDecoder().decode(bytes)}`;
}
