export { FetchRequest, fetchByValue } from "./fetch-endpoint";
export { type Framing, type HeaderList, type HeadParse, headerValue, MAX_BODY_BYTES, parseRequestHead, type RequestHead } from "./head";
export { forwardRequestHeaders, forwardResponseHeaders, REDACTED, redactHeaders, redactUrl } from "./headers";
export {
  DEFAULT_BODY_BUDGET_BYTES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CHUNKS,
  DEFAULT_MAX_CONNECTIONS,
  HEAD_LIMIT,
} from "./limits";
export { createProxy } from "./proxy";
export { refusalResponse, statusForRefusal } from "./respond";
export { ByteSource, type HeadRead } from "./source";
export { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEAD_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_UPSTREAM_TIMEOUT_MS } from "./timeouts";
export type {
  ByValueRequest,
  ConnectInfo,
  EgressProxy,
  EgressProxy as Proxy,
  FetchAnswer,
  FetchByValue,
  FetchOutcome,
  HostResolution,
  OwnDecision,
  OwnEndpointSpec,
  OwnHandler,
  OwnHandlers,
  OwnRequest,
  OwnResponse,
  ProxyOptions,
  ResolveHost,
  TunnelContext,
  TunnelHook,
  UpstreamFetch,
  UpstreamInit,
  UpstreamPath,
} from "./types";
export { corsProxyUrl } from "./upstream";
