/**
 * Branch ("what if") in the timeline: a step card's *Branch from here* and the header's *Compare
 * with parent* post `branch`; the host (src/host/branch/controller.ts) answers with what it opens
 * (a new timeline of the branch, a compare panel), not with a message of its own.
 */
import { isIndex, isObj } from './guards';
import type { Rollout, RolloutLink } from './model';

/** What a branch control asks for: `fromHere` needs `stepIndex` (the step the model writes anew). */
export type BranchAction = 'fromHere' | 'compareParent';

export const BRANCH_ACTIONS: readonly BranchAction[] = ['fromHere', 'compareParent'];

/** A branch control in the timeline was used. */
export interface BranchControlMessage {
  type: 'branch';
  action: BranchAction;
  rolloutIndex: number;
  stepIndex?: number;
}

/** Validates a `branch` message (the host's side). */
export function isBranchControlMessage(v: Record<string, unknown>): boolean {
  return (BRANCH_ACTIONS as readonly unknown[]).includes(v.action) && isIndex(v.rolloutIndex) && (v.stepIndex === undefined || isIndex(v.stepIndex)) && (v.action !== 'fromHere' || isIndex(v.stepIndex));
}

/**
 * The parent link of a branch (a rollout written by Branch from Here… or `trajectory-inspector
 * branch`: ATIF with root `extra.branch`, formats/atif.ts): its `parent` link. Null for any other
 * rollout, a subagent's link to its parent session included.
 */
export function branchParentOf(r: Pick<Rollout, 'format' | 'metadata' | 'links'>): RolloutLink | null {
  const extra = r.metadata.extra;
  if (r.format !== 'atif' || !isObj(extra) || !isObj(extra.branch)) return null;
  return r.links?.find((l) => l.relation === 'parent' && l.path !== null) ?? null;
}
