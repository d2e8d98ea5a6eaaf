export {
  type AddressCategory,
  type AddressClass,
  addressCategory,
  classifyAddress,
  classifyHost,
  type HostKind,
  isPublicAddress,
  parseIPv4Dotted,
  parseIPv6,
} from "./address";
export { type ConfinedPolicy, type ConfinedRule, confineLinkPolicy, DEMO_VAULT_ID } from "./confine";
export {
  type CanonicalRequestPath,
  canonicalRequestPath,
  type Decision,
  decide,
  endpointMatches,
  evaluate,
  findHostRule,
  modeOf,
  type PolicyRequest,
  pathHasPrefix,
  type Target,
} from "./decide";
export { DEFAULT_POLICY, DEFAULT_POLICY_TEXT } from "./default";
export { canonicalJson, policyHash } from "./hash";
export { createPolicyHolder, type PolicyHolder } from "./holder";
export { type HostReading, hostKey, privateNameReason, readHost, refuseHost } from "./host";
export { loadPolicy, type PolicyLoad, parsePolicy } from "./load";
export { EndpointRule, HostPattern, HostRule, HttpHandling, Policy, type PolicyInput, PolicyMode } from "./schema";
