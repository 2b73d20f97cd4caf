/**
 * The group view's numbers: every rollout of one prompt (a GRPO group) with its reward and length,
 * the best one (highest reward; ties: resolved first, then fewest steps, then file order), and
 * where each other rollout first parts from the best (core `alignRollouts`).
 * Pure TypeScript (no vscode).
 */
import { countedSteps, type Rollout } from '../model';
import { alignRollouts, type Divergence } from './align';

/** One rollout of a group as the group view lists it. */
export interface GroupMember {
  /** Position of the rollout in its file. */
  index: number;
  rolloutId: string;
  reward: number | null;
  resolved: boolean | null;
  steps: number;
  /** True for the best rollout (the one the others are compared with). */
  best: boolean;
  /** Where this rollout's actions first differ from the best one's; null for the best and for rollouts whose actions agree with it throughout. */
  divergence: Divergence | null;
  /** Rows of the alignment with the best: how many steps are the same / changed / only here / only in the best. */
  same: number;
  changed: number;
  onlyHere: number;
  onlyBest: number;
}

/** A group's members, best first, then by reward (high → low; unknown last), then file order. */
export interface GroupSummary {
  groupId: string | null;
  members: GroupMember[];
  /** Mean of the known rewards, or null. */
  meanReward: number | null;
}

function better(a: { r: Rollout; i: number }, b: { r: Rollout; i: number }): number {
  const ra = a.r.outcome.reward;
  const rb = b.r.outcome.reward;
  if (ra !== rb) {
    if (ra === null) return 1;
    if (rb === null) return -1;
    return rb - ra;
  }
  const res = (x: boolean | null) => (x === true ? 0 : x === null ? 1 : 2);
  return res(a.r.outcome.resolved) - res(b.r.outcome.resolved) || countedSteps(a.r) - countedSteps(b.r) || a.i - b.i;
}

/**
 * Summarises the rollouts of one group. `members` are the rollouts with their index in the file.
 * The divergence reported is the first *action* divergence (a changed command / tool call or a
 * step on one side only): message and reasoning wording differ between any two samples.
 */
export function summarizeGroup(groupId: string | null, members: { rollout: Rollout; index: number }[]): GroupSummary {
  const list = members.map((m) => ({ r: m.rollout, i: m.index }));
  const sorted = [...list].sort(better);
  const best = sorted[0];
  const out: GroupMember[] = sorted.map((m) => {
    const base = { index: m.i, rolloutId: m.r.id, reward: m.r.outcome.reward, resolved: m.r.outcome.resolved, steps: countedSteps(m.r) };
    if (m === best) return { ...base, best: true, divergence: null, same: m.r.steps.length, changed: 0, onlyHere: 0, onlyBest: 0 };
    const a = alignRollouts(best.r, m.r, { inlineDiffs: false });
    return {
      ...base,
      best: false,
      divergence: a.firstActionDivergence,
      same: a.counts.same,
      changed: a.counts.changed,
      onlyHere: a.counts['only-right'],
      onlyBest: a.counts['only-left'],
    };
  });
  const rewards = list.map((m) => m.r.outcome.reward).filter((x): x is number => x !== null);
  return { groupId, members: out, meanReward: rewards.length ? rewards.reduce((s, x) => s + x, 0) / rewards.length : null };
}
