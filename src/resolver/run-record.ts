import { type EventLog, refuse, type Verdict } from "../log";
import { systemTimers } from "../platform";
import type { FieldSpec, Origin } from "./fields";
import type { LintDiagnostic } from "./preflight";
import { refForm } from "./reference";
import type { Resolution, ResolvedResource } from "./types";

/** One node the walk is about to resolve: a field's reference, where it sits in the tree. */
export interface Step {
  field: string;
  ref: string;
  spec: FieldSpec;
  origin: Origin | null;
  depth: number;
  parent: number | null;
  chain: readonly string[];
  resource?: ResolvedResource["resource"];
}

/** The monotonic clock durations are measured on. */
export const now = (): number => systemTimers.now();

/**
 * What one run of `resolveHarness` has seen so far: every node (with its `resolver.step`
 * event), every lint, every offline miss, and the `resolver.run` progress; `result` turns it
 * into the `Resolution`.
 */
export class RunRecord {
  readonly resources: ResolvedResource[] = [];
  readonly lints: LintDiagnostic[] = [];
  private readonly misses: string[] = [];
  /** Nodes known so far, for progress: the walk adds to it as it discovers more. */
  private expected = 1;
  /**
   * Set once the run's outcome is reported: nodes added later (run-time fetches) still get
   * their `resolver.step` under this run, but the run's progress stays as it was reported.
   */
  private settled = false;

  constructor(
    readonly run: string,
    private readonly source: string,
    private readonly log: EventLog | undefined,
  ) {}

  expect(count: number): void {
    this.expected += count;
  }

  offlineMiss(url: string): void {
    this.misses.push(url);
  }

  progress(phase: "start" | "progress" | "done" | "failed", message?: string): void {
    this.log?.append({
      kind: "resolver.run",
      run: this.run,
      phase,
      harness: this.source,
      done: this.resources.length,
      total: Math.max(this.expected, this.resources.length),
      ...(message ? { message } : {}),
    });
  }

  lint(diagnostic: LintDiagnostic): void {
    this.lints.push(diagnostic);
    this.log?.append({ kind: "resolver.lint", run: this.run, ...diagnostic });
  }

  /** Adds one node of the resolution tree and logs its `resolver.step`. */
  record(step: Step, started: number, verdict: Verdict, extra: Partial<ResolvedResource>): ResolvedResource {
    const form = refForm(step.ref);
    const res: ResolvedResource = {
      id: this.resources.length,
      parent: step.parent,
      depth: step.depth,
      field: step.field,
      ref: step.ref,
      refKind: step.resource === "command" ? "command" : form,
      resource: step.resource ?? step.spec.shape,
      url: null,
      path: null,
      pin: null,
      sha256: null,
      cache: "none",
      verdict,
      bytes: 0,
      durationMs: Math.max(0, now() - started),
      location: null,
      ...extra,
    };
    this.resources.push(res);
    this.log?.append({
      kind: "resolver.step",
      run: this.run,
      field: res.field,
      ref: res.ref,
      refKind: res.refKind,
      pin: res.pin,
      cache: res.cache,
      ...res.verdict,
      bytes: res.bytes,
      durationMs: res.durationMs,
      ...(res.warning !== undefined ? { warning: res.warning } : {}),
      id: res.id,
      parent: res.parent,
      depth: res.depth,
      resource: res.resource,
      sha256: res.sha256,
      ...(res.url !== null ? { url: res.url } : {}),
      ...(res.files ? { files: res.files.length } : {}),
    });
    if (!this.settled) this.progress("progress");
    return res;
  }

  /** A run refused before its first node (the org config itself is invalid). */
  failed(error: Verdict): Resolution {
    this.progress("failed", error.reason);
    this.settled = true;
    return { run: this.run, ok: false, source: this.source, harness: null, resources: [...this.resources], lints: [...this.lints], error };
  }

  /**
   * The run's outcome: every offline miss in one `offline-miss`, else the first refused node;
   * the harness `output` only when nothing was refused. `warm` runs report what they cached.
   */
  result(output: Record<string, unknown> | null, warm: boolean): Resolution {
    let error: Verdict | null = null;
    if (this.misses.length > 0) {
      const missing = `${this.misses.length} resource(s) are not in the cache: ${this.misses.join(", ")}`;
      error = refuse("offline-miss", `offline, and ${missing}`, "resolver");
    } else {
      const first = this.resources.find((r) => !r.verdict.allowed);
      if (first) error = { ...first.verdict, reason: `${first.field}: ${first.verdict.reason}` };
    }
    const ok = error === null;
    if (ok)
      this.progress("done", warm ? `cache warmed: ${this.resources.filter((r) => r.url !== null).length} remote resource(s)` : undefined);
    else this.progress("failed", error?.reason);
    this.settled = true;
    return {
      run: this.run,
      ok,
      source: this.source,
      harness: ok ? output : null,
      resources: [...this.resources],
      lints: [...this.lints],
      error,
    };
  }
}
