/**
 * Dataset records whose own labels contradict each other: a ProcessBench item
 * whose final answer is wrong (`final_answer_correct: false`) while its `label` says no step is
 * wrong (−1), an AgentProcessBench row whose labelled steps are all +1 while its `final_label` is
 * −1. The loaders (src/core/formats/processBench.ts, agentProcessBench.ts) record such a conflict
 * on the rollout
 * (`metadata.labelConflict`, with a located warning); `agreement` leaves these rollouts out of
 * Cohen's κ and the first-error metrics, and `export` drops, keeps or refuses them
 * (`--conflicts drop|keep|fail`). Pure; never imports `vscode`.
 */
import type { Rollout } from '../model';

/** A rollout's label conflict: what contradicts what, and the JSON pointer of the field that says so. */
export interface LabelConflict {
  reason: string;
  pointer: string | null;
}

/** What an export does with conflicting records: leave them out (default), export them as they are, or refuse to export. */
export type ConflictPolicy = 'drop' | 'keep' | 'fail';
export const CONFLICT_POLICIES: ConflictPolicy[] = ['drop', 'keep', 'fail'];

/** The conflict a loader recorded on `r` (`metadata.labelConflict`), or null. */
export function labelConflictOf(r: Rollout): LabelConflict | null {
  const c = (r.metadata as Record<string, unknown> | undefined)?.labelConflict;
  if (!c || typeof c !== 'object') return null;
  const { reason, pointer } = c as { reason?: unknown; pointer?: unknown };
  return typeof reason === 'string' ? { reason, pointer: typeof pointer === 'string' ? pointer : null } : null;
}
