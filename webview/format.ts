/** Small text formatters for the timeline (pure). */
import type { Action, Observation, Step } from '../src/shared/model';

// The reward, first-line, step-gist and byte-size texts are the host's too (src/shared/text.ts).
export { firstLine, formatBytes, formatReward, stepGist } from '../src/shared/text';

/** `850 ms`, `2.1 s`, `3m 05s`, `1h 02m`. */
export function formatDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return '';
  if (sec < 1) return `${Math.round(sec * 1000)} ms`;
  if (sec < 60) return `${sec < 10 ? sec.toFixed(1) : Math.round(sec)} s`;
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m}m ${String(Math.round(sec - m * 60)).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m - h * 60).padStart(2, '0')}m`;
}

/**
 * An integer with thousands separators as `toLocaleString('en-US')` writes it (`1,234,567`), without
 * Intl: the page's first `toLocaleString` costs 25–40 ms of ICU set-up, on the path of the first
 * paint. Other numbers (fractions, non-finite) go to `toLocaleString`.
 */
export function groupThousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = (i > 3 ? ',' : '') + digits.slice(Math.max(0, i - 3), i) + out;
  return n < 0 ? `-${out}` : out;
}

/** `1,234` / `12.3k` / `1.2M`. */
export function formatCount(n: number): string {
  if (n < 10_000) return groupThousands(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : usd >= 0.01 ? `$${usd.toFixed(3)}` : `$${usd.toPrecision(2)}`;
}

/** Milliseconds since the epoch for an ISO timestamp, or null. */
export function parseTime(ts: string | null): number | null {
  if (!ts) return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : t;
}

/** The clock time as written in an ISO timestamp (`12:03:04`), without converting zones. */
export function clockTime(ts: string): string {
  const m = /[T ](\d{2}:\d{2}:\d{2})/.exec(ts);
  return m ? m[1] : ts;
}

/** `+1m 02s` elapsed since the first timestamp. */
export function formatElapsed(ms: number): string {
  return `+${formatDuration(ms / 1000)}`;
}

/** An action paired with the observations that answer it. */
export interface ActionPair {
  action: Action | null;
  observations: Observation[];
}

/**
 * Pairs a step's actions with their observations: by call id when the format links them, else by
 * position when the counts agree. Observations left over are returned as pairs without an action.
 */
export function pairActions(step: Pick<Step, 'actions' | 'observations'>): ActionPair[] {
  const { actions, observations } = step;
  const linked = actions.some((a) => a.callId !== null) && observations.some((o) => o.callId !== null);
  if (!linked) {
    if (actions.length === observations.length) return actions.map((a, i) => ({ action: a, observations: [observations[i]] }));
    if (actions.length === 1) return [{ action: actions[0], observations }];
    return [
      ...actions.map((a) => ({ action: a, observations: [] as Observation[] })),
      ...(observations.length ? [{ action: null, observations }] : []),
    ];
  }
  const used = new Set<Observation>();
  const pairs: ActionPair[] = actions.map((a) => {
    const obs = a.callId === null ? [] : observations.filter((o) => o.callId === a.callId);
    obs.forEach((o) => used.add(o));
    return { action: a, observations: obs };
  });
  const rest = observations.filter((o) => !used.has(o));
  if (rest.length) pairs.push({ action: null, observations: rest });
  return pairs;
}

/** Pretty JSON for tool arguments (strings shown as they are). */
export function formatArguments(args: unknown): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  try {
    return JSON.stringify(args, null, 2);
  } catch {
    return String(args);
  }
}

/** Splits a long text for clamping: the first `maxLines` lines / `maxChars` characters, and whether anything was cut. */
export function clampText(text: string, maxLines: number, maxChars: number): { text: string; cut: boolean } {
  let end = Math.min(text.length, maxChars);
  let nl = -1;
  for (let i = 0; i < maxLines; i++) {
    nl = text.indexOf('\n', nl + 1);
    if (nl < 0 || nl >= end) break;
    if (i === maxLines - 1) end = nl;
  }
  if (end >= text.length) return { text, cut: false };
  return { text: text.slice(0, end).trimEnd(), cut: true };
}

/** Reference-label wording: +1 good, 0 neutral, −1 bad. */
export function refLabelText(value: 1 | 0 | -1): { sign: string; word: 'good' | 'neutral' | 'bad' } {
  return value === 1 ? { sign: '+1', word: 'good' } : value === -1 ? { sign: '−1', word: 'bad' } : { sign: '0', word: 'neutral' };
}
