import { z } from "zod";

/**
 * A small W3C WebDriver (classic) client over fetch: the commands the engine tests need
 * (new session, navigate, refresh, execute async script, find and click, window size,
 * delete). WebKitGTK's driver (`WebKitWebDriver`) speaks classic WebDriver; the npm clients
 * (webdriverio and its `webdriver` package) bring dozens of dependencies for the same eight
 * HTTP calls, so the suite keeps its own.
 */
const Envelope = z.object({ value: z.unknown() });
const Failure = z.object({ error: z.string(), message: z.string().optional() });
const NewSession = z.object({
  sessionId: z.string(),
  capabilities: z.object({ browserName: z.string(), browserVersion: z.string() }).loose(),
});
/** The W3C element reference's key. */
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
const ElementRef = z.object({ [ELEMENT]: z.string() });

export class WebDriverError extends Error {}

async function command(base: string, method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json; charset=utf-8" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const { value } = Envelope.parse(await response.json());
  const failure = Failure.safeParse(value);
  if (!response.ok || failure.success)
    throw new WebDriverError(
      `WebDriver ${method} ${path}: ${failure.success ? `${failure.data.error}: ${failure.data.message ?? ""}` : response.status}`,
    );
  return value;
}

export class WebDriverSession {
  private constructor(
    private readonly base: string,
    readonly id: string,
    readonly browser: string,
  ) {}

  /** Opens a session on the driver at `base` (e.g. http://127.0.0.1:4444) with these capabilities. */
  static async create(base: string, alwaysMatch: Record<string, unknown>): Promise<WebDriverSession> {
    const created = NewSession.parse(await command(base, "POST", "/session", { capabilities: { alwaysMatch } }));
    const { browserName, browserVersion } = created.capabilities;
    return new WebDriverSession(base, created.sessionId, `${browserName} ${browserVersion}`);
  }

  private run(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<unknown> {
    return command(this.base, method, `/session/${this.id}${path}`, body);
  }

  async setTimeouts(timeouts: { script?: number; pageLoad?: number; implicit?: number }): Promise<void> {
    await this.run("POST", "/timeouts", timeouts);
  }

  async setWindowSize(width: number, height: number): Promise<void> {
    await this.run("POST", "/window/rect", { width, height });
  }

  async navigate(url: string): Promise<void> {
    await this.run("POST", "/url", { url });
  }

  async refresh(): Promise<void> {
    await this.run("POST", "/refresh", {});
  }

  /** Runs `script` as an async script body: its last argument is the callback that ends it. */
  executeAsync(script: string, args: unknown[]): Promise<unknown> {
    return this.run("POST", "/execute/async", { script, args });
  }

  async click(selector: string): Promise<void> {
    const found = ElementRef.parse(await this.run("POST", "/element", { using: "css selector", value: selector }));
    await this.run("POST", `/element/${found[ELEMENT]}/click`, {});
  }

  /** Types `text` into the first element matching `selector` (the driver's key events; "\uE007" is Enter). */
  async sendKeys(selector: string, text: string): Promise<void> {
    const found = ElementRef.parse(await this.run("POST", "/element", { using: "css selector", value: selector }));
    await this.run("POST", `/element/${found[ELEMENT]}/value`, { text });
  }

  /** Makes the frame of the first element matching `selector` the one later commands run in; null: the top-level page. */
  async switchToFrame(selector: string | null): Promise<void> {
    if (selector === null) return void (await this.run("POST", "/frame", { id: null }));
    const found = ElementRef.parse(await this.run("POST", "/element", { using: "css selector", value: selector }));
    await this.run("POST", "/frame", { id: found });
  }

  /** A PNG of the window as the reader sees it. */
  async screenshot(): Promise<Buffer> {
    return Buffer.from(z.string().parse(await this.run("GET", "/screenshot")), "base64");
  }

  async delete(): Promise<void> {
    await this.run("DELETE", "");
  }
}

/** Waits for a driver at `base` to say it is ready (GET /status), up to `timeoutMs`. */
export async function driverReady(base: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const status = z
        .object({ ready: z.boolean() })
        .loose()
        .parse(await command(base, "GET", "/status"));
      if (status.ready) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new WebDriverError(`no WebDriver answered at ${base} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
