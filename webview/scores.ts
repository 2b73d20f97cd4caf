/**
 * Step-score helpers the webview shares (heat strip, scrollbar marks, step cards): the colour
 * bucket of a value and its CSS. Colours are classes (`heat-0` … `heat-9`, red → yellow → green,
 * from the theme's chart colours) because the CSP allows no inline style attributes.
 */
import { css } from 'lit';
import type { StepScoreView } from '../src/shared/scoresProtocol';

/** Number of colour buckets. */
export const HEAT_BUCKETS = 10;

/** The value scaled into [0, 1] by the scorer's range (clamped). */
export function normalise(value: number, range: readonly [number, number]): number {
  const t = (value - range[0]) / (range[1] - range[0]);
  return Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0));
}

/** Bucket 0 (worst) … 9 (best) of a value. */
export function heatBucket(value: number, range: readonly [number, number]): number {
  return Math.min(HEAT_BUCKETS - 1, Math.floor(normalise(value, range) * HEAT_BUCKETS));
}

/** `bad` below 0.4 of the range, `good` from 0.6, `neutral` between. */
export function scoreWord(value: number, range: readonly [number, number]): 'bad' | 'neutral' | 'good' {
  const t = normalise(value, range);
  return t < 0.4 ? 'bad' : t < 0.6 ? 'neutral' : 'good';
}

/** A value as shown: two decimals (three when the range is narrower than 1). */
export function formatScore(value: number, range: readonly [number, number]): string {
  return value.toFixed(range[1] - range[0] < 1 ? 3 : 2);
}

/**
 * What the built-in scorer (rules over exit codes and output text, src/scorers/builtin/rules.ts) is
 * good for and what not, as its hover says it. Measured against the labelled samples: see
 * bench/RESULTS.md ("Built-in scorer vs labels").
 */
export const BUILTIN_SCORER_SCOPE =
  'Built-in rules: good at finding failed commands and tool calls (exit codes, error text, command not found), failing tests, harness parse errors and repeated failing commands in coding and terminal rollouts, and at crediting test progress and edits that the next test run passes. Not a judge of reasoning, nor of whether a call was the right one: a call that returned without an error scores 0.65 whatever it did, a step with nothing to judge (no result, bare keystrokes) 0.50, and math or question-answering steps are not told apart.';

/** Tooltip of a step's score (with the built-in scorer: what its rules are good for and what not). */
export function scoreTitle(s: StepScoreView, range: readonly [number, number], scorer: { name: string; version: string; model: string | null } | null): string {
  const who = scorer ? `${scorer.name} ${scorer.version}${scorer.model ? ` · ${scorer.model}` : ''}` : 'scorer';
  return `Step score ${formatScore(s.value, range)} in [${range[0]}, ${range[1]}]${s.label ? ` (${s.label})` : ''} — ${who}${s.explanation ? `\n${s.explanation}` : ''}\n(a scorer's opinion of this step, not the rollout's outcome reward)${scorer?.name === 'builtin' ? `\n${BUILTIN_SCORER_SCOPE}` : ''}`;
}

/** `--heat` per bucket: red (0) → yellow (5) → green (9). */
export const HEAT_CSS = css`
  .heat-0 { --heat: var(--vscode-charts-red, #f14c4c); }
  .heat-1 { --heat: color-mix(in srgb, var(--vscode-charts-red, #f14c4c) 80%, var(--vscode-charts-yellow, #cca700)); }
  .heat-2 { --heat: color-mix(in srgb, var(--vscode-charts-red, #f14c4c) 60%, var(--vscode-charts-yellow, #cca700)); }
  .heat-3 { --heat: color-mix(in srgb, var(--vscode-charts-red, #f14c4c) 40%, var(--vscode-charts-yellow, #cca700)); }
  .heat-4 { --heat: color-mix(in srgb, var(--vscode-charts-red, #f14c4c) 20%, var(--vscode-charts-yellow, #cca700)); }
  .heat-5 { --heat: var(--vscode-charts-yellow, #cca700); }
  .heat-6 { --heat: color-mix(in srgb, var(--vscode-charts-yellow, #cca700) 66%, var(--vscode-charts-green, #89d185)); }
  .heat-7 { --heat: color-mix(in srgb, var(--vscode-charts-yellow, #cca700) 33%, var(--vscode-charts-green, #89d185)); }
  .heat-8 { --heat: var(--vscode-charts-green, #89d185); }
  .heat-9 { --heat: var(--vscode-testing-iconPassed, #73c991); }
`;

/** Strips (heat strip, label strip) draw at most this many cells; a longer rollout shares cells. */
export const MAX_STRIP_CELLS = 300;

/**
 * The step ranges the cells of a strip stand for: one step per cell up to `maxCells` steps, else
 * `maxCells` consecutive ranges `[from, to)` covering `count` steps as evenly as possible (so a
 * 10,000-step rollout draws 300 cells, not 10,000 that run past the panel's edge).
 */
export function stripRanges(count: number, maxCells = MAX_STRIP_CELLS): [number, number][] {
  const cells = Math.min(count, maxCells);
  const out: [number, number][] = [];
  for (let c = 0; c < cells; c++) out.push([Math.floor((c * count) / cells), Math.floor(((c + 1) * count) / cells)]);
  return out;
}
