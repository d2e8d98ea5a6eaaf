import type { LessonStep } from "./schema";

/**
 * Whether a step is judged on the kernel's own decision (a `verdict` by the kernel, or
 * `landlock-denied`): the kernel's audit records come on the guest's control line, beside the
 * console, so both hosts let such a step's window wait for them after a refused command's end
 * mark (src/console's `KERNEL_REPORTS`).
 */
export function judgedOnKernelDecision(step: LessonStep): boolean {
  return step.expect.some(
    (item) => "verdict" in item && item.verdict !== undefined && (item.by === "kernel" || item.verdict === "landlock-denied"),
  );
}
