/**
 * Text helpers the host and the webview share, so a reward or a step reads the same in the
 * Rollouts view, the Go to Step list, the compare view and the timeline. Pure; types only from
 * src/shared/model.ts.
 */
import type { Step } from './model';

/** Formats a reward: integers with one decimal (`1.0`), others with at most three. */
export function formatReward(x: number): string {
  if (Number.isInteger(x)) return x.toFixed(1);
  return String(Math.round(x * 1000) / 1000);
}

/** First line of a text (trimmed), shortened to `max` characters with a trailing `…`. */
export function firstLine(text: string, max = 80): string {
  const t = text.trim();
  const nl = t.indexOf('\n');
  const line = nl >= 0 ? t.slice(0, nl) : t;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What a step is about in one line: its first command, tool, or message line ('' when it has none). */
export function stepGist(step: Pick<Step, 'actions' | 'message' | 'reasoning' | 'observations'>): string {
  for (const a of step.actions) {
    if (a.command && a.command.trim()) return firstLine(a.command);
    if (a.tool) return a.path ? `${a.tool} ${a.path}` : a.tool;
  }
  if (step.message.trim()) return firstLine(step.message);
  if (step.reasoning?.trim()) return firstLine(step.reasoning);
  const out = step.observations.find((o) => o.output.trim());
  return out ? firstLine(out.output) : '';
}

/** A size in bytes (or characters) in words: `512 B`, `3.4 KB`, `1.2 MB` (1 KB = 1024). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
