// Skills (docs/decisions/0003-skills-from-a-public-registry.md): discovery over a public registry, resolution to a pinned address,
// whitelisted acquisition behind a handle, and the one explicit call that reads the text.

export { acquireSkill } from "./acquire";
export { acquireFromCommit, gitBlobSha1, RAW_GITHUB, rawUrl } from "./acquire-git";
export { acquireFromWellKnown, KNOWN_INDEX_SCHEMAS } from "./acquire-well-known";
export { type AcquireDeps, type Acquired, checkText, randomHandle } from "./admit";
export { type Attached, type AttachedSkill, attachSkill, type RunScript, scriptsGiven, wrapSkillContext } from "./attach";
export type { SkillsFetch, SkillsFetchInit } from "./fetch";
export { mayRunScripts, type OpenDeps, type Opened, type OpenPurpose, openSkillText, SkillText } from "./handle";
export {
  COMMIT_SHA_PATTERN,
  type GitSkillRef,
  parseSkillId,
  parseSkillRef,
  SKILL_ID_PATTERN,
  type SkillId,
  type SkillRef,
  type WellKnownSkillRef,
} from "./id";
export {
  createModelSkillTools,
  type ModelAcquire,
  type ModelSearch,
  type ModelSkillDeps,
  type ModelSkillHit,
  type ModelSkillTools,
  type ModelToolFailure,
  type ModelUse,
} from "./model-tools";
export { GITHUB_API, isUsableBranchName, type PinnedGitAddress, type ResolveDeps, type Resolved, resolveSkillAddress } from "./resolve";
export { MAX_REGISTRY_STRING, sanitizeRegistryString, stripEscapes } from "./sanitize";
export { SCRUB_WINDOW, SKILL_TEXT_WITHHELD, scrubSkillText } from "./scrub";
export {
  DEFAULT_REGISTRY,
  DEFAULT_SEARCH_LIMIT,
  type DropReason,
  MAX_SEARCH_LIMIT,
  type SearchDeps,
  type SearchDropped,
  type SearchOutcome,
  type SearchRequest,
  type SkillHit,
  searchSkills,
} from "./search";
export {
  createMemoryBlobStore,
  createMemoryHandleStore,
  HeldScript,
  type SkillBlobStore,
  SkillHandleRecord,
  type SkillHandleStore,
} from "./store";
export { candidateRoots, judgeListing, judgeSubtree, MAX_FILE_BYTES, MAX_SCRIPTS, SCRIPT_NAME_PATTERN, TreeListing } from "./tree";
