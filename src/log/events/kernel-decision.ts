import { z } from "zod";
import { VerdictFields } from "./common";

/**
 * A refusal the guest's kernel decided and logged itself: one Landlock audit record
 * (LANDLOCK_ACCESS, type 1423, Linux 6.15+), handed to the host on the guest's control line
 * (guest/src/tab-audit.c) and read by src/console/landlock-audit.ts. Unlike `kernel.result`,
 * which is what a demo program says it got, this is the kernel's own word: which rights it
 * blocked, on which object, for which process, in which Landlock domain.
 */
export const KernelDecision = z.object({
  kind: z.literal("kernel.decision"),
  ...VerdictFields,
  /** The rights the kernel blocked, in its words: `fs.write_file`, `net.connect_tcp`, `scope.signal`, … */
  access: z.array(z.string()),
  /** What was refused: the path, or the address and port (`93.184.216.34:443`), or the right when there is no object. */
  target: z.string(),
  path: z.string().optional(),
  port: z.number().int().min(0).max(65535).optional(),
  address: z.string().optional(),
  /** The process refused (from the event's SYSCALL record), or the domain's creator when the kernel named none. */
  program: z.string(),
  pid: z.number().int().nullable(),
  /** The Landlock domain (hex id), and the program that created it when the kernel named it (its first denial). */
  domain: z.string(),
  domainProgram: z.string().optional(),
  /** The audit record as the kernel wrote it (with the SYSCALL record's pid, comm and exe appended). */
  record: z.string(),
});

export const kernelDecisionEvents = [KernelDecision] as const;
