/**
 * Step scores in the timeline: the host posts the scores of the rollout shown (`scores`) from the
 * scorer or its cache (src/host/scoring/service.ts).
 */
import { isIndex, isObj } from './guards';

/** One step's score as the webview shows it (a scorer's `StepScore` for the step). */
export interface StepScoreView {
  index: number;
  value: number;
  label: string | null;
  explanation: string | null;
}

/**
 * The per-step scores of the rollout shown, from the scorer (or its cache): sent after
 * the rollout, as partial results arrive, and when scoring ends. `state` says where scoring is;
 * `error` why it failed (then `steps` holds only scores that were validated before, usually none).
 * Step scores are a scorer's opinion of each step, distinct from the rollout's outcome reward.
 */
export interface ScoresMessage {
  type: 'scores';
  rolloutIndex: number;
  /** Rollout the scores belong to (a late answer for another rollout is dropped). */
  rolloutId: string;
  state: 'idle' | 'scoring' | 'done' | 'error' | 'cancelled';
  scorer: { name: string; version: string; model: string | null } | null;
  /** [low, high] of the values (the scorer's scoreRange). */
  range: [number, number];
  steps: StepScoreView[];
  /** True when the scores came from the on-disk cache. */
  cached: boolean;
  error: string | null;
  /** Agent steps the scorer left unscored with a reason ("not scored: beyond model context"); absent = none. */
  unscored?: { index: number; reason: string }[];
  /** Set when the rollout has no step the scorer can score (shown instead of a blank strip). */
  notScorable?: string | null;
}

const SCORE_STATES: readonly unknown[] = ['idle', 'scoring', 'done', 'error', 'cancelled'];

/** Validates a `scores` message (the webview's side). */
export function isScoresMessage(v: Record<string, unknown>): boolean {
  const range = v.range;
  const scorer = v.scorer;
  return (
    isIndex(v.rolloutIndex) &&
    typeof v.rolloutId === 'string' &&
    SCORE_STATES.includes(v.state) &&
    (scorer === null || (isObj(scorer) && typeof scorer.name === 'string' && typeof scorer.version === 'string' && (scorer.model === null || typeof scorer.model === 'string'))) &&
    Array.isArray(range) &&
    range.length === 2 &&
    range.every((x) => typeof x === 'number' && Number.isFinite(x)) &&
    (range[0] as number) < (range[1] as number) &&
    Array.isArray(v.steps) &&
    v.steps.every(
      (s) =>
        isObj(s) &&
        isIndex(s.index) &&
        typeof s.value === 'number' &&
        Number.isFinite(s.value) &&
        (s.label === null || typeof s.label === 'string') &&
        (s.explanation === null || typeof s.explanation === 'string'),
    ) &&
    typeof v.cached === 'boolean' &&
    (v.error === null || typeof v.error === 'string') &&
    (v.unscored === undefined || (Array.isArray(v.unscored) && v.unscored.every((u) => isObj(u) && isIndex(u.index) && typeof u.reason === 'string'))) &&
    (v.notScorable === undefined || v.notScorable === null || typeof v.notScorable === 'string')
  );
}
