export { createPageRelay, type PageRelay, type PageRelayOptions } from "./page-relay";
export { createRelayField } from "./relay-field";
export { initialRelaySetting, parseRelayUrl, RELAY_STORAGE_KEY, type RelaySetting, RelayUrl } from "./settings";
export { TEST_TRUST_ANCHORS_GLOBAL, testTrustAnchors } from "./test-trust";
export {
  createEpoxyEngine,
  createWispRelayFetch,
  epoxyEngine,
  type RelayEngine,
  type RelayEngineFactory,
  relayFailure,
} from "./wisp-fetch";
