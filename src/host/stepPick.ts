/** The Go to Step quick pick's entries and the step number typed into it. Nothing here imports `vscode`. */
import type { Rollout } from '../core/model';
import { stepGist } from '../shared/text';

/** A Go to Step quick-pick entry (1-based numbers, as the timeline shows them). */
export interface StepPickItem {
  label: string;
  description: string;
  index: number;
}

/** One Go to Step entry per step: its 1-based number, role and gist (stepGist). */
export function stepPickItems(rollout: Pick<Rollout, 'steps'>): StepPickItem[] {
  return rollout.steps.map((s) => ({ label: `${s.index + 1}`, description: `${s.role} · ${stepGist(s)}`, index: s.index }));
}

/**
 * Reads a typed step number (1-based, as shown). Returns the 0-based index, or null when the text
 * is not a number in range.
 */
export function parseStepNumber(text: string, count: number): number | null {
  const m = /^\s*#?\s*(\d+)\s*$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= count ? n - 1 : null;
}
