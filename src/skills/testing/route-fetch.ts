/**
 * A recording fetch for unit tests: answers from a table of URL → response and remembers every
 * URL asked for, so a test can assert that nothing was fetched after a listing refused.
 */
export interface RouteAnswer {
  status?: number;
  /** A string or bytes; an object is sent as JSON; a function makes a fresh stream per request. */
  body: string | Uint8Array | object | (() => ReadableStream<Uint8Array>);
  headers?: Record<string, string>;
}

export interface RouteFetch {
  (url: string, init?: RequestInit): Promise<Response>;
  readonly requests: string[];
}

export function createRouteFetch(routes: Record<string, RouteAnswer>): RouteFetch {
  const requests: string[] = [];
  const fetch = async (url: string): Promise<Response> => {
    requests.push(url);
    const answer = routes[url];
    if (!answer) return new Response("not found", { status: 404 });
    const { body } = answer;
    const payload =
      typeof body === "function" ? body() : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
    return new Response(payload as BodyInit, { status: answer.status ?? 200, headers: answer.headers ?? {} });
  };
  return Object.assign(fetch, { requests });
}

/** A body that streams `total` bytes of "a" in chunks, counting how many bytes were pulled. */
export function countingStream(total: number, chunk = 16 * 1024): { stream: () => ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  return {
    pulled: () => pulled,
    stream: () => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) {
            controller.close();
            return;
          }
          const size = Math.min(chunk, total - sent);
          sent += size;
          pulled += size;
          controller.enqueue(new Uint8Array(size).fill(0x61));
        },
      });
    },
  };
}
