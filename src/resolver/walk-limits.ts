import { refuse, type Verdict } from "../log";
import type { Step } from "./run-record";
import type { ResolveLimits } from "./types";

/**
 * The bounds of one run's walk: no resource is its own ancestor (`cycle`), one pin
 * per URL (`hash-mismatch`), the closure no deeper than `maxDepth` and the `base:` chain no
 * deeper than `maxBaseDepth` (`depth-exceeded`), at most `maxDependencies` dependencies listed by
 * one resource and at most `maxRemoteResources` distinct remote URLs in the whole harness
 * besides the harness itself (`breadth-exceeded`). Each check returns the refusal, or null.
 */
export class WalkLimits {
  private readonly pinsByUrl = new Map<string, string>();
  private readonly remoteSeen = new Set<string>();

  constructor(private readonly limits: ResolveLimits) {}

  /** A remote URL about to be fetched; it counts towards the breadth from here on. */
  admitRemote(step: Step, url: string, pin: string | null): Verdict | null {
    // A cycle is the sharper diagnosis: with content pins a cycle always also has a pin conflict.
    const cycle = cycleOf(step, url);
    if (cycle) return cycle;
    if (pin !== null) {
      const previous = this.pinsByUrl.get(url);
      if (previous !== undefined && previous !== pin)
        return refuse("hash-mismatch", `${url} is pinned with two different hashes in one harness (${previous} and ${pin})`, "resolver");
      this.pinsByUrl.set(url, pin);
    }
    const deep = this.tooDeep(step);
    if (deep) return deep;
    if (step.resource !== "harness") this.remoteSeen.add(url);
    if (this.remoteSeen.size > this.limits.maxRemoteResources)
      return refuse("breadth-exceeded", `more than ${this.limits.maxRemoteResources} remote resources in one harness`, "resolver");
    return null;
  }

  /** The dependency list of one resource, judged on its length before any of it is fetched. */
  admitDependencies(field: string, count: number): Verdict | null {
    return count > this.limits.maxDependencies
      ? refuse(
          "breadth-exceeded",
          `${field} lists ${count} dependencies; one resource may list at most ${this.limits.maxDependencies}`,
          "resolver",
        )
      : null;
  }

  /** A local path about to be read. */
  admitLocal(step: Step, path: string): Verdict | null {
    return cycleOf(step, path) ?? this.tooDeep(step);
  }

  /** The next layer of the `base:` chain, `depth` layers below the harness. */
  admitBase(depth: number): Verdict | null {
    return depth > this.limits.maxBaseDepth
      ? refuse("depth-exceeded", `base: chain is deeper than ${this.limits.maxBaseDepth}`, "resolver")
      : null;
  }

  /** A base whose identity (URL or path) is already in the chain `seen`. */
  baseCycle(identity: string, seen: readonly string[]): Verdict | null {
    return seen.includes(identity)
      ? refuse("cycle", `base ${identity} appears twice: ${[...seen, identity].join(" → ")}`, "resolver")
      : null;
  }

  private tooDeep(step: Step): Verdict | null {
    return step.depth > this.limits.maxDepth
      ? refuse("depth-exceeded", `${step.field} is ${step.depth} levels deep; the limit is ${this.limits.maxDepth}`, "resolver")
      : null;
  }
}

function cycleOf(step: Step, identity: string): Verdict | null {
  return step.chain.includes(identity)
    ? refuse("cycle", `${identity} is its own ancestor: ${[...step.chain, identity].join(" → ")}`, "resolver")
    : null;
}
