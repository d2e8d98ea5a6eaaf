// The guest's serial console, host-neutral: the page and the Node host (npx tab lesson test)
// both read the guest's shell through these. The prompt's OSC 133 marks say where the shell
// is and how each command ended; nothing here matches printed prompts.
export { connectionsClosed, connectionsOpenSince, KERNEL_REPORTS, type LateReports, lateReportArrived } from "./command-settle";
export {
  type CommandWatchOptions,
  DEFAULT_SETTLE_LIMIT_MS,
  typedLine,
  type WatchedCommand,
  type WatchedConsole,
  watchCommands,
} from "./command-watch";
export {
  type CommandResult,
  type ConsoleDriver,
  createConsoleDriver,
  type DrivenConsole,
  type DriverRunOptions,
  SIGINT_STATUS,
} from "./console-driver";
export {
  type ConsoleTask,
  type ConsoleTaskDeps,
  type ConsoleTaskEnd,
  type ConsoleTaskOutcome,
  type ConsoleTaskResult,
  type LogWindow,
  runConsoleTask,
} from "./console-task";
export { type ConsoleTurns, createConsoleTurns } from "./console-turns";
export { parseGuestLine } from "./guest-lines";
export type { GuestPort, WatchedGuest } from "./guest-port";
export { auditFields, createLandlockAuditReader, LANDLOCK_ACCESS, LANDLOCK_DOMAIN, type LandlockAuditReader } from "./landlock-audit";
export { GuestConsole } from "./serial-console";
export { createShellMarkSplitter, parseOsc133, type ShellMark, type ShellMarkSplitter, type ShellPiece } from "./shell-marks";
export { type CommandRecord, type ShellPhase, ShellTracker } from "./shell-state";
export { isTerminalReport } from "./terminal-report";
export { commandNotices, MAX_NOTICES_PER_COMMAND, noticeOf, noticeRows, type VerdictNotice } from "./verdict-notice";
