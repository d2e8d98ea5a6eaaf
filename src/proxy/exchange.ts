import type { ByteStream } from "../bytes";
import { refuse, type Verdict } from "../log";
import { evaluate, type Target } from "../policy";
import { authorityOf, normaliseAuthority, tunnelAuthority } from "./authority";
import { type BodyFailure, BUDGET_SPENT, readBody } from "./body";
import { type Connection, type DecisionMode, type DecisionRecord, decisionEvent } from "./connection";
import { decodeCharge } from "./fetch-endpoint";
import { headerValue, type RequestHead, unforwardableMethod } from "./head";
import { forwardRequestHeaders } from "./headers";
import { type BodyLimits, BudgetLease, type ByteBudget } from "./limits";
import { type OwnAnswer, type OwnEndpoint, sendOwnReply } from "./own-endpoints";
import { contentTypeRefusal, crossSiteRefusal } from "./own-guard";
import { streamReply } from "./reply-stream";
import { CONNECTION_ESTABLISHED, CONTINUE, refusalResponse } from "./respond";
import { bodyTimeoutVerdict, type ConnectionTimeouts, type UpstreamClock } from "./timeouts";
import type { ProxyOptions, TunnelContext } from "./types";
import { fetchUpstream } from "./upstream";

/** What to do with the connection after an exchange. */
export type Next = "continue" | "close";
type BodyOutcome =
  | { ok: true; body: Uint8Array }
  | { ok: false; failure: BodyFailure | { code: "request-timeout"; status: 408; reason: string } };

/** What every exchange of one proxy shares: its options, limits, budget, own names and endpoints. */
export interface ExchangeContext {
  options: ProxyOptions;
  limits: BodyLimits;
  /** One budget for every connection of this proxy (and its tunnels): what all bodies in flight may hold. */
  budget: ByteBudget;
  /** The proxy's own names, lower-cased, as a Host header carries them. */
  ownHosts: ReadonlySet<string>;
  endpoints: ReadonlyMap<string, OwnEndpoint>;
  upstreamClock: UpstreamClock | null;
  /** Serves a connection (a CONNECT tunnel's plaintext) with the same proxy. */
  serveConnection(stream: ByteStream, tunnel: TunnelContext | null): Promise<void>;
}

/** One request on one connection: it records exactly one decision, then answers. */
export class Exchange {
  private head: RequestHead | null = null;
  private bodyRead = false;
  private decided = false;
  private continueSent = false;
  /** Set once the request is for the proxy itself: the mode its endpoint files it under. */
  private ownMode: DecisionMode | null = null;
  private readonly writtenBefore: number;
  /** This exchange's share of the in-flight budget, given back when it ends. */
  readonly lease: BudgetLease;

  constructor(
    private readonly ctx: ExchangeContext,
    private readonly conn: Connection,
    private readonly clocks: ConnectionTimeouts,
    readonly id: string,
    private readonly started: number,
    private readonly tunnel: TunnelContext | null,
  ) {
    this.writtenBefore = conn.bytesWritten;
    this.lease = new BudgetLease(ctx.budget);
  }

  /** Exactly one decision per exchange: a second record is a bug, and is dropped rather than logged twice. */
  private record(record: DecisionRecord): void {
    if (this.decided) return;
    this.decided = true;
    this.ctx.options.log.append(
      decisionEvent(
        this.id,
        { ...record, ...(this.tunnel ? { tlsSession: this.tunnel.sessionId } : {}) },
        this.ctx.options.clock() - this.started,
      ),
    );
  }

  /** Whether any of a reply (beyond a 100 Continue) has been written: then no refusal can follow. */
  private get answered(): boolean {
    return this.conn.bytesWritten - this.writtenBefore > (this.continueSent ? CONTINUE.length : 0);
  }

  /** The safety net: something threw mid-exchange. Records the one decision if none was, answers if nothing was sent. */
  async failed(error: unknown): Promise<void> {
    if (this.decided) return;
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const verdict = refuse("upstream-error", `the proxy failed while serving this request: ${why}`, "proxy");
    const method = this.head?.method ?? "?";
    const target = this.head?.target ?? "";
    if (this.answered) {
      this.record({
        mode: this.mode(),
        method,
        target,
        status: 500,
        bytes: 0,
        verdict,
        ...(this.head ? { headers: this.head.headers } : {}),
      });
      return;
    }
    try {
      await this.refuse(method, target, verdict, true, { status: 500 });
    } catch {
      // The guest went away too; the decision is recorded.
    }
  }

  private get bodyPending(): boolean {
    const framing = this.head?.framing;
    if (!framing || this.bodyRead) return false;
    return framing.kind === "chunked" || (framing.kind === "length" && framing.length > 0);
  }

  /** Answers a refusal: the status for its code (or `extra.status`), `X-Verdict`, the JSON body. */
  async refuse(method: string, target: string, verdict: Verdict, forceClose = false, extra: Partial<DecisionRecord> = {}): Promise<Next> {
    const close = forceClose || verdict.code === "bad-request" || this.bodyPending || !(this.head?.keepAlive ?? false);
    const response = refusalResponse(verdict, close, extra.status);
    this.record({
      mode: this.mode(),
      method,
      target,
      status: response.status,
      bytes: 0,
      verdict,
      ...(this.head ? { headers: this.head.headers } : {}),
      ...extra,
    });
    await this.conn.write(response.head, response.body);
    return close ? "close" : "continue";
  }

  /** How the decision files this exchange: by the request-target's form, or by the own endpoint it reached. */
  private mode(): DecisionMode {
    if (this.tunnel) return "tunnel";
    if (this.head?.method === "CONNECT") return "connect";
    return this.ownMode ?? "absolute";
  }

  /** The request body, within the body limits, the shared budget and the body timeout. */
  private async body(): Promise<BodyOutcome> {
    const head = this.head!;
    const { framing } = head;
    // Refused before a 100 Continue invites the client to send it.
    if (framing.kind === "length" && framing.length > this.ctx.limits.maxBodyBytes) {
      const reason = `Content-Length ${framing.length} exceeds the ${this.ctx.limits.maxBodyBytes}-byte body limit`;
      return { ok: false, failure: { code: "too-large", status: 413, reason } };
    }
    if (this.bodyPending && head.expectContinue) {
      this.continueSent = true;
      await this.conn.write(CONTINUE);
    }
    if (!this.bodyPending) return readBody(this.conn.source, framing, { limits: this.ctx.limits, lease: this.lease });
    const timed = await this.clocks.readBody(() => readBody(this.conn.source, framing, { limits: this.ctx.limits, lease: this.lease }));
    if (timed.kind === "timeout")
      return { ok: false, failure: { code: "request-timeout", status: 408, reason: bodyTimeoutVerdict(timed.afterMs).reason } };
    this.bodyRead = true;
    return timed.value;
  }

  /** A body that could not be read is refused with its code; the connection closes (where the next request starts is unknown). */
  private refuseBody(method: string, target: string, failure: Extract<BodyOutcome, { ok: false }>["failure"]): Promise<Next> {
    return this.refuse(method, target, refuse(failure.code, failure.reason, "proxy"), true, { status: failure.status });
  }

  async serve(head: RequestHead): Promise<Next> {
    this.head = head;
    if (head.method === "CONNECT") {
      if (this.tunnel)
        return this.refuse(head.method, head.target, refuse("bad-request", "CONNECT inside a CONNECT tunnel", "proxy"), true);
      // Only authority-form opens a tunnel; CONNECT with a URL or a path would go upstream as a method fetch() cannot send.
      if (/[/?#@]/.test(head.target))
        return this.refuse(
          head.method,
          head.target,
          refuse("bad-request", `CONNECT takes authority-form (host:port), not ${JSON.stringify(head.target.slice(0, 80))}`, "proxy"),
          true,
        );
      return this.connect(head);
    }
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(head.target)) return this.absolute(head);
    if (head.target.startsWith("/")) return this.tunnel ? this.inTunnel(head, this.tunnel) : this.own(head);
    return this.refuse(
      head.method,
      head.target,
      refuse(
        "bad-request",
        `the request-target ${JSON.stringify(head.target.slice(0, 80))} is neither a path nor an absolute URL`,
        "proxy",
      ),
      true,
    );
  }

  private async connect(head: RequestHead): Promise<Next> {
    if (head.framing.kind !== "none")
      return this.refuse(head.method, head.target, refuse("bad-request", "a CONNECT request cannot carry a body", "proxy"), true);
    const decision = evaluate(this.ctx.options.policy(), { method: "CONNECT", authority: head.target });
    if (!decision.verdict.allowed || !decision.target) return this.refuse(head.method, head.target, decision.verdict, true);
    const { host, port } = decision.target;
    if (!this.ctx.options.tunnel) {
      const reason = `the policy allows ${host}:${port}, but no TLS terminator is attached to this proxy, so the tunnel cannot be opened; use absolute-form (GET https://${host}/…) or POST /v0/fetch`;
      return this.refuse(head.method, head.target, refuse("tls-not-ready", reason, "proxy"), true);
    }
    this.record({
      mode: "connect",
      method: "CONNECT",
      target: `${host}:${port}`,
      status: 200,
      bytes: 0,
      headers: head.headers,
      verdict: { ...decision.verdict, reason: `${decision.verdict.reason}; the page terminates TLS inside the tunnel` },
    });
    await this.conn.write(CONNECTION_ESTABLISHED);
    this.conn.tunnelTarget = `${host}:${port}`;
    const raw = this.conn.rawStream();
    try {
      await this.ctx.options.tunnel.open(raw, {
        host,
        port,
        id: this.id,
        serveTunnel: (plain, sessionId) => this.ctx.serveConnection(plain, { host, port, sessionId }),
      });
    } catch {
      // The terminator reports its own failures (tls.verdict); the guest's connection just ends.
    }
    return "close";
  }

  private async absolute(head: RequestHead): Promise<Next> {
    const methodProblem = unforwardableMethod(head.method);
    if (methodProblem) return this.refuse(head.method, head.target, refuse("bad-request", methodProblem, "proxy"), true);
    const decision = evaluate(this.ctx.options.policy(), { method: head.method, url: head.target });
    if (!decision.verdict.allowed || !decision.target)
      return this.refuse(head.method, head.target, decision.verdict, false, upstreamOf(decision.target));
    const target = decision.target;
    const urlAuthority = authorityOf(head.target);
    const hostHeader = headerValue(head.headers, "host");
    const scheme = head.target.slice(0, head.target.indexOf(":")).toLowerCase();
    if (this.tunnel) {
      if (urlAuthority === null || scheme !== "https" || urlAuthority !== tunnelAuthority(this.tunnel))
        return this.refuse(
          head.method,
          head.target,
          mismatch(`${head.target} is not on ${tunnelAuthority(this.tunnel)}, the host this tunnel was opened for`),
          false,
        );
    }
    if (hostHeader !== undefined && normaliseAuthority(hostHeader, scheme) !== urlAuthority)
      return this.refuse(
        head.method,
        head.target,
        mismatch(`the Host header ${JSON.stringify(hostHeader)} differs from the request's target ${urlAuthority ?? head.target}`),
      );
    return this.forward(head, head.target, target, decision.verdict);
  }

  private async inTunnel(head: RequestHead, tunnel: TunnelContext): Promise<Next> {
    const expected = tunnelAuthority(tunnel);
    const methodProblem = unforwardableMethod(head.method);
    if (methodProblem)
      return this.refuse(head.method, `https://${expected}${head.target}`, refuse("bad-request", methodProblem, "proxy"), true);
    const hostHeader = headerValue(head.headers, "host");
    if (hostHeader === undefined || normaliseAuthority(hostHeader, "https") !== expected)
      return this.refuse(
        head.method,
        head.target,
        mismatch(`the Host header ${JSON.stringify(hostHeader ?? "")} differs from ${expected}, the host this tunnel was opened for`),
      );
    const url = `https://${expected}${head.target}`;
    const decision = evaluate(this.ctx.options.policy(), { method: head.method, url });
    if (!decision.verdict.allowed || !decision.target) return this.refuse(head.method, url, decision.verdict);
    return this.forward(head, url, decision.target, decision.verdict);
  }

  /** The fetch path shared by absolute-form and tunnel requests. */
  private async forward(head: RequestHead, shownTarget: string, target: Target, allowed: Verdict): Promise<Next> {
    const body = await this.body();
    if (!body.ok) return this.refuseBody(head.method, shownTarget, body.failure);
    if (body.body.length > 0 && (head.method === "GET" || head.method === "HEAD"))
      return this.refuse(
        head.method,
        shownTarget,
        refuse("bad-request", `a ${head.method} request cannot carry a body through fetch()`, "proxy"),
      );
    const outcome = await fetchUpstream(this.ctx.options, {
      target,
      method: head.method,
      headers: forwardRequestHeaders(head.headers),
      body: body.body,
    });
    if (outcome.kind === "refused")
      return this.refuse(head.method, shownTarget, outcome.verdict, false, {
        upstream: target.url,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
        ...(outcome.path === undefined ? {} : { upstreamPath: outcome.path }),
      });
    const reply = await streamReply(this.conn, outcome.response, head.method, head.version, head.keepAlive, this.ctx.upstreamClock);
    const notes = [
      target.upgraded ? "http:// upgraded to https:// by policy" : "",
      reply.error ?? "",
      reply.cut ? `status ${outcome.response.status} was already sent, so the guest got a body cut short after ${reply.bytes} bytes` : "",
    ].filter(Boolean);
    const reason = notes.length > 0 ? `${outcome.verdict.reason} (${notes.join("; ")})` : outcome.verdict.reason;
    this.record({
      mode: this.mode(),
      method: head.method,
      target: shownTarget,
      status: outcome.response.status,
      bytes: reply.bytes,
      headers: head.headers,
      upstream: outcome.via,
      upstreamPath: outcome.path,
      ...(reply.cut ? { bodyCut: true } : {}),
      verdict: { ...allowed, ...outcome.verdict, reason },
    });
    return reply.close ? "close" : "continue";
  }

  /** Origin-form requests to the proxy itself: the route table of built-ins and handlers. */
  private async own(head: RequestHead): Promise<Next> {
    this.ownMode = "own";
    const hostHeader = (headerValue(head.headers, "host") ?? "").toLowerCase();
    if (!this.ctx.ownHosts.has(hostHeader))
      return this.refuse(
        head.method,
        head.target,
        mismatch(
          `an origin-form request for Host ${JSON.stringify(hostHeader)} reached the proxy (${[...this.ctx.ownHosts].join(", ")}); use an absolute URL or CONNECT`,
        ),
      );
    const queryAt = head.target.indexOf("?");
    const path = queryAt === -1 ? head.target : head.target.slice(0, queryAt);
    const query = queryAt === -1 ? "" : head.target.slice(queryAt);
    const route = `${head.method} ${path}`;
    const endpoint = this.ctx.endpoints.get(route);
    if (endpoint) this.ownMode = endpoint.mode;
    // A web page the user visits must not drive the proxy's own endpoints.
    const crossSite = crossSiteRefusal(head.headers, this.ctx.ownHosts);
    if (crossSite) return this.refuse(head.method, path, crossSite);
    if (!endpoint) {
      const reason = `the proxy has no endpoint ${route} (it has ${[...this.ctx.endpoints.keys()].join(", ")})`;
      return this.refuse(head.method, path, refuse("endpoint-not-allowed", reason, "proxy"));
    }
    const wrongType = contentTypeRefusal(head.method, path, head.headers, endpoint.json);
    if (wrongType) return this.refuse(head.method, path, wrongType, true, { status: 415 });
    // A body of known length that will be decoded whole is admitted with what decoding it will hold, before it is read.
    const declared = head.framing.kind === "length" && head.framing.length <= this.ctx.limits.maxBodyBytes ? head.framing.length : null;
    const decodeCharged = endpoint.chargesDecode === true && declared !== null;
    if (decodeCharged && !this.lease.grow(decodeCharge(declared)))
      return this.refuse(head.method, path, refuse("too-large", BUDGET_SPENT, "proxy"), true, { status: 503 });
    const body = await this.body();
    if (!body.ok) return this.refuseBody(head.method, path, body.failure);
    return this.answer(head, path, await endpoint.serve({ head, path, query, body: body.body, lease: this.lease, decodeCharged }));
  }

  /** An own endpoint's answer: its one decision, recorded here, and its reply (complete, or chunked as it streams). */
  private async answer(head: RequestHead, path: string, answer: OwnAnswer): Promise<Next> {
    const target = answer.target ?? path;
    const upstream = {
      ...(answer.upstream === undefined ? {} : { upstream: answer.upstream }),
      ...(answer.upstreamPath === undefined ? {} : { upstreamPath: answer.upstreamPath }),
    };
    if (!answer.verdict.allowed)
      return this.refuse(head.method, target, answer.verdict, false, {
        mode: answer.mode,
        ...(answer.status === undefined ? {} : { status: answer.status }),
        ...upstream,
      });
    const close = !head.keepAlive;
    await sendOwnReply(this.conn, answer, close, (bytes) =>
      this.record({
        mode: answer.mode,
        method: answer.decision?.method ?? head.method,
        target,
        status: answer.decision?.status ?? answer.status ?? 200,
        bytes: answer.decision?.bytes ?? bytes,
        headers: head.headers,
        ...upstream,
        verdict: answer.verdict,
      }),
    );
    return close ? "close" : "continue";
  }
}

function mismatch(reason: string): Verdict {
  return refuse("host-header-mismatch", reason, "proxy");
}

function upstreamOf(target: Target | null): { upstream?: string } {
  return target ? { upstream: target.url } : {};
}
