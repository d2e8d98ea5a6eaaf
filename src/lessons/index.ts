export { draftLesson, serializeLesson } from "./draft";
export { expectItemName } from "./item-name";
export { type ItemResult, JUDGE_BUDGET_MS, type JudgeBudget, judgeBudget, judgeStep, type StepJudgement } from "./judge";
export { judgedOnKernelDecision } from "./kernel-step";
export {
  type DraftDecode,
  decodeLessonDraft,
  encodeLessonDraft,
  LESSON_DRAFT_MAX_BYTES,
  LESSON_LINK_MAX_CHARS,
  readLinkPolicy,
  SHARE_POLICY_LINK_MAX_CHARS,
  SHARE_POLICY_MAX_BYTES,
} from "./link";
export {
  type LessonMarkdown,
  MARKDOWN_MAX_CHARS,
  type MarkdownBlock,
  type MarkdownInline,
  parseLessonMarkdown,
} from "./markdown";
export { lessonMarkdownIssues } from "./markdown-check";
export { mainOutcome, type Outcome, outcomeOf } from "./outcome";
export {
  compileOutputPattern,
  estimatedInstructions,
  OUTPUT_JUDGED_MAX_CHARS,
  OUTPUT_PATTERN_MAX_CHARS,
  OUTPUT_PATTERN_MAX_INSTRUCTIONS,
  type OutputPatternCompile,
} from "./output-pattern";
export {
  LESSON_MAX_ALIAS_EXPANSION,
  LESSON_MAX_CHARS,
  LESSON_MAX_NODES,
  LESSON_MAX_PATTERN_INSTRUCTIONS,
  type LessonIssue,
  type LessonParse,
  parseLesson,
} from "./parse";
export { checkLessonPin, lessonPin, type PinCheck, type PinnedRef, splitLessonRef } from "./pin";
export { createLessonRun, LessonProgress, type LessonRun, type StepAttempt } from "./player";
export {
  type CheckRunner,
  decisiveWords,
  formatLessonIssues,
  LESSON_SETTLE_MS,
  type LessonLoadSource,
  lessonLoadEvent,
  refusedLoadEvent,
  runStepChecks,
  type SetupEnd,
  type StepCheck,
  setupFailure,
  stepChecks,
  stepCommand,
} from "./run-rules";
export {
  CHECK_DEFAULT_SECONDS,
  CHECK_MAX_SECONDS,
  type CheckUser,
  EVENT_KINDS,
  ExpectItem,
  eventKindName,
  KERNEL_RESULTS,
  type KernelResult,
  LESSON_FORMAT,
  Lesson,
  LessonStep,
  StepType,
  stepHints,
  stepType,
} from "./schema";
export type { CheckRun, CommandWindow } from "./window";
