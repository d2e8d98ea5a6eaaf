import type { ResourceResolver } from "./resolve-resource";
import type { RunRecord } from "./run-record";
import type { Harness } from "./schema";

/**
 * What a resolved harness run keeps for as long as the run lasts: the merged harness, its
 * root node, and the run's own resolver (the allowlists in force, the walk's limits, the lock's
 * pins, the cache) and node record. Whatever the run resolves later goes through these, so it
 * meets exactly the rules the harness met and appears as a node of the same tree.
 */
export interface RunScope {
  /** The run id its `resolver.step` events carry. */
  readonly run: string;
  /** The merged harness (fields as written, before they were rewritten to locations). */
  readonly harness: Harness;
  /** The harness's own node: later nodes hang under it. */
  readonly rootId: number;
  /** The harness's URL or path: a later reference to it is a cycle. */
  readonly rootIdentity: string;
  /** True when the run resolved offline: nothing is fetched, a cache miss is `offline-miss`. */
  readonly offline: boolean;
  readonly record: RunRecord;
  readonly resources: ResourceResolver;
}
