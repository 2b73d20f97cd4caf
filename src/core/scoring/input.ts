/**
 * Rollout (core model) → ScoreRollout (scorer protocol) conversion, and the content hash the score
 * cache is keyed by. Pure; never imports `vscode`.
 */
import { createHash } from 'node:crypto';
import type { Action, Rollout, Step } from '../model';
import type { ScoreAction, ScoreActionKind, ScoreRollout, ScoreStep } from './protocol';

const KIND: Record<Action['kind'], ScoreActionKind> = {
  shell: 'shell',
  keystrokes: 'keys',
  tool: 'tool',
  file_edit: 'edit',
  finish: 'finish',
};

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` with every lone UTF-16 surrogate (half of a pair, from a cut string or a JSON `\ud800`
 * escape) replaced by U+FFFD, the mark the loader shows; null stays null. Every scorer backend gets
 * text made well-formed this way (the Python scorer does the same, scorers/python/ti_scorer/render.py),
 * so none can fail encoding it as UTF-8 (a tokenizer, an HTTP body).
 */
export function wellFormed<T extends string | null>(text: T): T {
  if (text === null) return text;
  const s = text as string;
  const isWF = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  if (isWF ? isWF.call(s) : !LONE_SURROGATE.test(s)) return text;
  LONE_SURROGATE.lastIndex = 0;
  return s.replace(LONE_SURROGATE, '\ufffd') as T;
}

function argumentsText(a: unknown): string | null {
  if (a === undefined || a === null) return null;
  if (typeof a === 'string') return wellFormed(a);
  try {
    return wellFormed(JSON.stringify(a) ?? null);
  } catch {
    return wellFormed(String(a));
  }
}

/** One step in protocol shape. Keys are always written in the same order (the hash relies on it). */
export function toScoreStep(s: Step): ScoreStep {
  return {
    index: s.index,
    role: s.role,
    message: s.message === '' ? null : wellFormed(s.message),
    reasoning: wellFormed(s.reasoning),
    actions: s.actions.map((a): ScoreAction => ({ kind: KIND[a.kind] ?? 'other', command: wellFormed(a.command), tool: wellFormed(a.tool), arguments: argumentsText(a.arguments) })),
    // isError / interrupted only when said, so the input (and its cache key) of other formats is unchanged.
    observations: s.observations.map((o) => ({
      output: wellFormed(o.output),
      exitCode: o.exitCode,
      truncated: o.truncated,
      ...(o.isError !== undefined ? { isError: o.isError } : {}),
      ...(o.interrupted !== undefined ? { interrupted: o.interrupted } : {}),
    })),
    durationMs: s.durationSec === null ? null : Math.round(s.durationSec * 1000),
  };
}

/**
 * A rollout in protocol shape (`score` params): id, task, every step it adds. Steps an ATIF
 * continuation marks as copied from its earlier context (`Step.copiedContext`) are left out: they
 * are not new agent steps (scored, if at all, in the rollout they come from); the others keep their
 * indexes, so scores still map to the right steps.
 */
export function toScoreRollout(r: Rollout): ScoreRollout {
  return { id: r.id, task: { id: r.task.id, instruction: wellFormed(r.task.instruction) }, steps: r.steps.filter((s) => !s.copiedContext).map(toScoreStep) };
}

/**
 * sha256 (hex) of the canonical JSON of what a scorer sees of a rollout: its task and steps, NOT its
 * id (the same steps under another id score the same). Canonical = `toScoreRollout`'s fixed key
 * order with `JSON.stringify`, so equal content gives equal hashes across runs and machines.
 */
export function contentHash(r: ScoreRollout): string {
  return createHash('sha256').update(JSON.stringify({ task: r.task, steps: r.steps })).digest('hex');
}

/** Number of steps in a list of rollouts. */
export function stepCount(rs: readonly ScoreRollout[]): number {
  let n = 0;
  for (const r of rs) n += r.steps.length;
  return n;
}
