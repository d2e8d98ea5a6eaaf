export type { Clock } from "../platform";
export { type Bounded, boundEvent, DEFAULT_LOG_LIMITS, type LogLimits } from "./bound";
export { DECISION_KINDS, type Decision, type DecisionAbout, decisionOf, decisionsOf } from "./decision";
export { displayText, escapeJsonText } from "./display";
export type { EventKind, EventOf } from "./event";
export { LogEvent, NewEvent } from "./event";
export * from "./events/cache";
export * from "./events/common";
export * from "./events/guest";
export * from "./events/kernel-decision";
export * from "./events/kms";
export * from "./events/policy";
export * from "./events/proxy";
export * from "./events/resolver";
export * from "./events/runner";
export * from "./events/session";
export * from "./events/skills";
export * from "./events/tls";
export * from "./events/wire";
export {
  JSON_LINES_CHUNK_BYTES,
  logJsonLines,
  logJsonLinesStream,
  type ParsedJsonLines,
  parseJsonLines,
  toJsonLine,
  toJsonLines,
} from "./jsonl";
export { createEventLog, type EventLog, type EventLogOptions, type Listener } from "./log";
export {
  createLogReader,
  describeLineErrors,
  describeSkippedLines,
  EVENT_KINDS,
  type LineError,
  type LogRead,
  type LogReader,
  type LogReadOptions,
  MAX_LOG_LINE_CHARS,
  type ReadLogLine,
  readLogChunks,
  readLogText,
  SEQUENCE_KINDS,
  type SkippedLines,
  type TranslatedLine,
} from "./read";
export {
  createScenarioWindowTracker,
  eventsInWindows,
  type ScenarioWindow,
  type ScenarioWindowTracker,
  scenarioWindows,
} from "./scenario-windows";
export { allow, DECIDERS, Decider, guardRefusal, refuse, VERDICT_CODES, Verdict, VerdictCode } from "./verdict";
export {
  compareSequences,
  decodeSequence,
  encodeSequence,
  replayed,
  type SequenceDiff,
  type SequenceStep,
  verdictSequence,
} from "./verdict-sequence";
