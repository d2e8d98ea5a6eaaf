export { type ModelAnswer, parseModelAnswer, quoteLine } from "./answer";
export {
  createModelEndpoint,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_CALLS,
  MODEL_PATH,
  MODEL_ROUTE,
  type ModelEndpoint,
  type ModelEndpointOptions,
  type ModelRun,
} from "./endpoint";
export { boundTranscript, MAX_TRANSCRIPT_CHARS, type PromptParts, systemPrompt, userMessage, type VerbUsage } from "./prompt";
export { redactSecret } from "./redact";
export {
  CALLER_CONFIG,
  captureRepositoryNotes,
  MAX_NOTE_BYTES,
  NOTE_NAMES,
  REPOSITORY_CONTEXT_TAG,
  type RepositoryFile,
  type RepositoryNote,
  repositoryContextBlock,
} from "./repo-context";
export { buildModelRequest, MAX_ANSWER_TOKENS, type ModelHttpRequest, type ModelPrompt } from "./request";
export {
  ANTHROPIC_MESSAGES_URL,
  ANTHROPIC_VERSION,
  DEFAULT_MODELS,
  DEFAULT_OPENAI_BASE,
  MODEL_PROVIDERS,
  ModelProvider,
  ModelSettings,
  modelUrl,
  OpenAiBase,
} from "./settings";
export {
  guestStepCount,
  type ModelSkills,
  mergeTranscript,
  type PageStep,
  runSkillStep,
  SKILL_VERBS,
  SkillStepLine,
  type SkillStepResult,
  type SkillUseResult,
  type SkillVerb,
  skillVerbUsages,
} from "./skill-verbs";
export { extractStep, type StepAnswer, type StepRules } from "./step";
