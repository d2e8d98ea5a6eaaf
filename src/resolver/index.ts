export { checkRemoteUrl } from "./address";
export { type AllowlistEntry, checkAllowlisted, checkSubset, covers, type MatchKey, matchKey, parseAllowlistEntry } from "./allowlist";
export { type ContentKind, checkContent, parseFrontmatter, parseYamlMapping } from "./content";
export { type FetchLike, type FetchOutcome, fetchGuarded } from "./fetcher";
export { createFixtureFetch, fixturePath } from "./fixtures";
export { GithubTree, type GithubTreeRef, gitBlobSha1, parseGithubTreeUrl, rawFileUrl, selectTreeFiles, treesApiUrl } from "./github";
export {
  createHttpLocalFiles,
  createMemoryLocalFiles,
  encodePathSegment,
  type HttpLocalFilesOptions,
  type LocalEntry,
  type LocalFiles,
} from "./local-files";
export { buildLockFile, lockedPins, lockNameOf, parseLockFile, renderLockFile } from "./lock";
export { pinOfLocal } from "./obtain";
export {
  checkOrgAllowlist,
  MAX_ORG_ALLOWLIST_ENTRIES,
  OrgAllowlistEntries,
  OrgAllowlistEntry,
  type OrgAllowlistParse,
  orgAllowlistCanonical,
  orgAllowlistEntryProblem,
  orgAllowlistHash,
  orgAllowlistText,
  parseOrgAllowlistText,
} from "./org-allowlist";
export {
  type AllowlistProposal,
  type AllowlistUpdate,
  createOrgAllowlist,
  ORG_ALLOWLIST_KEY,
  type OrgAllowlist,
  type OrgAllowlistOptions,
  type OrgAllowlistStorage,
  type ProposalDecision,
} from "./org-allowlist-store";
export { readOrgConfig } from "./org-config";
export { baseOfHarnessPath, isWithin, joinPath, resolveDotSegments } from "./paths";
export {
  DEFAULT_PREFLIGHT_ENV,
  type ExpandOptions,
  expandPreflight,
  isCredentialName,
  type LintDiagnostic,
  lintPreflight,
  PREFLIGHT_PATH_LIKE,
  type PreflightExpansion,
  redact,
} from "./preflight";
export { type PinnedUrl, parsePinnedUrl, type RefForm, refForm } from "./reference";
export { remoteBaseOf, resolveHarness, resolveHarnessSession } from "./resolve";
export type { RunScope } from "./run-scope";
export {
  createRuntimeFetchEndpoint,
  RESOLVE_PATH,
  RESOLVE_ROUTE,
  type RuntimeArm,
  type RuntimeDelivery,
  type RuntimeFetchEndpoint,
} from "./runtime-endpoint";
export {
  createRuntimeFetch,
  DEFAULT_MAX_RUNTIME_FETCHES,
  type RuntimeFetch,
  type RuntimeFetchAnswer,
  type RuntimeFetchFile,
  RuntimeFetchRequest,
  runtimeFetchStatus,
} from "./runtime-fetch";
export { Harness, OrgConfig, parseHarness, parseOrgConfig } from "./schema";
export { parseTreeManifest, type TreeFile, treeHash, treeManifest } from "./tree-hash";
export {
  DEFAULT_LIMITS,
  type LockDependency,
  LockFile,
  type Resolution,
  type ResolvedResource,
  type ResolveLimits,
  type ResolveOptions,
} from "./types";
