/** Small readers shared by the format loaders: tolerant field access and text extraction. */
import { RolloutLoadError } from '../errors';
import { tooDeepAt, type JsonDoc } from '../json';
import type { Action } from '../model';
import type { LoadInput } from './types';

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a path of object keys (`getIn(v, 'info', 'config')`), or undefined where a step is not an object. */
export function getIn(v: unknown, ...keys: string[]): unknown {
  let cur = v;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** The value when it is a string, else null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** The value when it is a finite number, else null. */
export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * Parses a JSON string when it is one (SWE-agent `replay_config`, `state` ≤0.7); returns other
 * values unchanged; undefined when the string is not JSON or nests deeper than MAX_JSON_DEPTH (a
 * value that deep could not be serialized or posted to the webview).
 */
export function maybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (tooDeepAt(v) >= 0) return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/**
 * Text of an OpenAI/Anthropic-style content value: a string, or a list of parts
 * (`{type:"text", text}`; other part types become `[image]`, `[audio]`, …).
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => {
        if (typeof p === 'string') return p;
        if (isObject(p)) {
          if (typeof p.text === 'string') return p.text;
          if (typeof p.type === 'string') return `[${p.type}]`;
        }
        return '';
      })
      .join('');
  }
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** The shapes of time every loader's `Step.timestamp` takes: ISO-8601 date and time, `T` or a space between, optional fraction and zone. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?\s?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Why a recorded timestamp is not a time (`Step.timestamp`, an ISO-8601 text), or null when it is
 * one: not ISO-8601 (`Tuesday`, `1`, a six-digit year), or no real date (`2026-13-45T99:99:99Z`).
 * Every loader's timestamps are checked with this after loading (core/oddities.ts); a bad one is a
 * located warning and the step keeps the text as recorded.
 */
export function timestampProblem(t: string): string | null {
  if (!ISO_TIMESTAMP.test(t)) return 'not an ISO-8601 time';
  return Number.isFinite(parseTime(t)) ? null : 'not a real date and time';
}

/** Milliseconds of an ISO-8601 timestamp (see timestampProblem), or NaN for anything else. */
export function parseTime(t: string): number {
  if (!ISO_TIMESTAMP.test(t)) return NaN;
  // Date.parse reads a space between date and time, and a fraction of any length, in V8 only for some shapes: normalise.
  const iso = t.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T').replace(/\s(?=[Zz+-])/, '').replace(/([.,])(\d{1,9})/, (_m, _p, d: string) => '.' + d.slice(0, 3).padEnd(3, '0'));
  return Date.parse(iso);
}

/** Seconds between two ISO timestamps, or null when either is missing/unparseable or the result is negative. */
export function secondsBetween(a: string | null, b: string | null): number | null {
  if (!a || !b) return null;
  const ta = parseTime(a);
  const tb = parseTime(b);
  if (Number.isNaN(ta) || Number.isNaN(tb) || tb < ta) return null;
  return (tb - ta) / 1000;
}

/** Outcome `resolved` implied by a reward: true for ≥1, false for ≤0, null in between or unknown. */
export function resolvedFromReward(reward: number | null): boolean | null {
  if (reward === null) return null;
  if (reward >= 1) return true;
  if (reward <= 0) return false;
  return null;
}

/**
 * Actions of a Terminus-2 reply (harbor `src/harbor/agents/terminus_2/`, JSON parser): the model's
 * raw JSON `{analysis, plan, commands:[{keystrokes, duration}], task_complete}`. Each command is a
 * `keystrokes` action (`arguments` = the command object), `task_complete: true` adds a `finish`
 * action. Returns null when the text (trimmed) is not such a JSON object — a reply with text around
 * the JSON is one Terminus rejects as a parse error, so it has no actions. Used by the Harbor traces
 * loader (harborTraces.ts) and the ATIF loader's raw-content mode (atif.ts: an agent step without tool
 * calls whose message is such a reply).
 */
export function terminusReplyActions(text: string): Action[] | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  const v = maybeJson(t);
  if (!isObject(v) || !(Array.isArray(v.commands) || typeof v.task_complete === 'boolean')) return null;
  const actions: Action[] = [];
  for (const c of Array.isArray(v.commands) ? v.commands : []) {
    if (isObject(c) && typeof c.keystrokes === 'string') {
      actions.push({ kind: 'keystrokes', command: c.keystrokes, tool: null, arguments: c, callId: null });
    }
  }
  if (v.task_complete === true) actions.push({ kind: 'finish', command: null, tool: null, callId: null });
  return actions;
}

/**
 * The parsed document of a loader that reads one JSON object per file (ATIF, Harbor trial result,
 * SWE-agent, mini-swe-agent).
 * @throws RolloutLoadError at line 1 ("one JSON object", found "JSON Lines") for a file of several values
 */
export function singleDoc(input: LoadInput, label: string): JsonDoc {
  if (input.doc) return input.doc;
  throw new RolloutLoadError(input.path, label, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'one JSON object', found: 'JSON Lines' }]);
}
