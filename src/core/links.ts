/**
 * Following a RolloutLink (model.ts) to its target inside a loaded file: which rollout, which step.
 * Pure; no `vscode`. The host opens the link's file (or stays in the same one) and then selects what
 * this returns.
 */
import type { Rollout, RolloutLink } from './model';

/** Where a link lands in a file's rollouts: a rollout position and a step to select (null = none). */
export interface LinkTarget {
  rollout: number;
  step: number | null;
}

/**
 * The rollout and step a link points at among `rollouts` (the rollouts of its target file):
 * - rollout: the one whose id is `link.rolloutId`; the first when the link names none; null when it
 *   names one the file does not hold;
 * - step: `link.stepIndex` when the rollout has it; else, for a link that names the tool call that
 *   started the target (`callId`: a subagent's parent link), the step holding an action with that
 *   call id; else null.
 */
export function findLinkTarget(rollouts: readonly Rollout[], link: Pick<RolloutLink, 'rolloutId' | 'stepIndex' | 'callId'>): LinkTarget | null {
  const at = link.rolloutId === null ? (rollouts.length ? 0 : -1) : rollouts.findIndex((r) => r.id === link.rolloutId);
  if (at < 0) return null;
  const r = rollouts[at];
  let step: number | null = null;
  if (typeof link.stepIndex === 'number' && link.stepIndex < r.steps.length) step = link.stepIndex;
  else if (link.callId) {
    const found = r.steps.find((s) => s.actions.some((a) => a.callId === link.callId));
    step = found ? found.index : null;
  }
  return { rollout: at, step };
}
