export { type CheckParse, type CheckResult, checkRequest, describeCheck, type MatchingRule, parseRequestLine } from "./check";
export { applyRuleChanges, describeRuleChange, diffPolicies, type RuleChange, type RuleChangeKind, ruleSummary } from "./diff";
export { type AwfImport, exportAwfConfig, importAwfConfig, looksLikeAwfConfig } from "./formats/awf";
export { foreignPolicyFormat, POLICY_FORMATS, type PolicyFormat } from "./formats/index";
export { LOG_FORMATS } from "./formats/logs";
export { exportOpenShellPolicy, importOpenShellPolicy, looksLikeOpenShellPolicy, type OpenShellImport } from "./formats/openshell";
export {
  exportSandboxRuntimeSettings,
  importSandboxRuntimeSettings,
  looksLikeSandboxRuntimeSettings,
  type SandboxRuntimeImport,
} from "./formats/sandbox-runtime";
export {
  exportSmokescreenAcl,
  importSmokescreenAcl,
  looksLikeSmokescreenAcl,
  SMOKESCREEN_DECISION,
  type SmokescreenImport,
  smokescreenLine,
  type Translated,
} from "./formats/smokescreen";
export {
  DEFAULT_LEARN_DEPTH,
  type Learned,
  type LearnOptions,
  type LearnSkip,
  learnPolicy,
  prefixAtDepth,
} from "./learn";
export {
  DECISION_KINDS,
  type DecisionRead,
  describeLineErrors,
  describeSkipped,
  type LineError,
  type LogLine,
  type ProxyDecisionEvent,
  readLogLineChunks,
  readLogLines,
  requestOfDecision,
} from "./log-lines";
export {
  describeReplayRow,
  describeReplaySummary,
  REPLAY_OUTCOMES,
  type Replay,
  type ReplayOutcome,
  type ReplayRow,
  type ReplaySummary,
  replayLog,
} from "./replay";
