/**
 * Which step of a rollout a raw-file hit belongs to (Find in Dump), and the hit's
 * text as the agent saw it. A step's source range does not always cover every byte of its step: an
 * OpenAI Responses row keeps the assistant's message and its `function_call` as separate items (the
 * step's range is the message's), a SWE-agent file repeats each command in `history`. So the step is
 * the one whose own text (command, output, message, reasoning: workspaceSearch.ts `matchStep`) holds the
 * query, nearest the hit: the step whose range holds the hit, else the last such step starting
 * before it, else the first after it; when no step's text holds it, the step whose range holds the
 * hit, else the last one starting before it. Pure; unit-tested in test/unit/search/hitStep.test.ts.
 */
import type { Rollout } from '../model';
import { matchStep } from './workspaceSearch';

/**
 * The index (`Step.index`) of the step a hit at `at` belongs to, or null when the rollout has no steps.
 * @param at the hit's position in the file in the units of the steps' `range` (UTF-16 offsets: rowLoad.ts)
 * @param re the query as a regular expression on the decoded text (workspaceSearch.ts `queryRegExp`), or null to place by range only
 */
export function stepForHit(rollout: Pick<Rollout, 'steps'>, at: number, re: RegExp | null): number | null {
  const steps = rollout.steps;
  if (!steps.length) return null;
  const holds = (s: (typeof steps)[number]) => !!s.range && s.range.start <= at && at < s.range.end;
  const nearest = (cands: typeof steps) => {
    const inside = cands.filter(holds);
    if (inside.length) return inside.reduce((a, b) => (b.range!.start >= a.range!.start ? b : a));
    let before: (typeof steps)[number] | null = null;
    let after: (typeof steps)[number] | null = null;
    for (const s of cands) {
      if (!s.range) continue;
      if (s.range.start <= at && (!before || s.range.start >= before.range!.start)) before = s;
      if (s.range.start > at && (!after || s.range.start < after.range!.start)) after = s;
    }
    return before ?? after;
  };
  if (re) {
    const cands = steps.filter((s) => matchStep(s, re).length > 0);
    if (cands.length === 1 || (cands.length && !cands.some((s) => s.range))) return cands[0].index;
    const n = cands.length ? nearest(cands) : null;
    if (n) return n.index;
  }
  return (nearest(steps) ?? steps[0]).index;
}

/**
 * A raw-file preview (text inside JSON strings, escapes and all: `cd /x && ls\\n\\"a\\"`) decoded
 * as the agent saw it: JSON escapes undone (`\\n` `\\t` `\\"` `\\\\` `\\uXXXX`), runs of white space
 * shown as one space. Text that is not in a JSON string passes through.
 */
export function decodePreview(raw: string): string {
  const s = raw.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) => {
    if (e[0] === 'u') return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ '"': '"', '\\': '\\', '/': '/', b: ' ', f: ' ', n: '\n', r: '\n', t: '\t' } as Record<string, string>)[e];
  });
  return s.replace(/\s+/g, ' ').trim();
}
