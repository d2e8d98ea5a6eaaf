// The agent runner's pure part (no DOM, no v86): what one run delivers to the guest, the
// agent's verbs and step rule, the step lines the guest prints, and the runner's demo. The
// page (src/page/features/runner) writes the files and types the command.
export { RUNNER_DEMO_FILES, RUNNER_DEMO_HARNESS, RUNNER_DEMO_REPO, RUNNER_DEMO_STEPS } from "./demo";
export {
  buildRunPlan,
  DEFAULT_STEPS,
  type DeliveredFile,
  deliveredFilePath,
  fieldSlug,
  GUEST_HOST_ENV,
  isPlainRelativePath,
  type PlanResult,
  type PreflightPlan,
  planPreflight,
  RUN_ID,
  type RunPlan,
  type RunRequest,
  skillDirName,
  stepsFromHarness,
  WorkspacePath,
} from "./plan";
// One agent run on a guest seen through its port (no DOM, no v86): resolve, deliver, type, watch.
export { type RunnerDeps, type RunOptions, type RunResult, runAgent } from "./run";
export { type ActiveRun, repositoryNotes, runtimeDeliverer, skillDeliverer } from "./run-time";
export { lineLevel, parseRunnerLine, type RunnerLine, runnerLineEvent, runOutcome } from "./step-lines";
export { AGENT_VERBS, AgentStep, MODEL_VERBS } from "./verbs";
