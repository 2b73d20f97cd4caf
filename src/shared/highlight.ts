/**
 * The matches of a search (Find in Dump, Search Rollouts) in the text of the step it opened, for the
 * timeline to mark them. Pure; shared by the host (which sends the query) and the webview (which
 * marks the matches).
 */

/** What a search looked for, as it used it: a literal or a regular expression, case-sensitive or not. */
export interface HighlightQuery {
  /** The text, or the source of a regular expression when `regex`. Not empty. */
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
}

/** At most this many matches are marked in one text (a one-letter query in a huge output stays cheap). */
export const MAX_MARKS = 1000;

/**
 * The search's regular expression (flags `g`, `u` when the source allows it, `i` unless
 * case-sensitive), as core search builds it; null when the pattern is empty or does not compile.
 */
export function highlightRegExp(q: HighlightQuery): RegExp | null {
  if (!q.pattern) return null;
  const source = q.regex ? q.pattern : q.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const flags = `g${q.caseSensitive ? '' : 'i'}`;
  for (const f of [`${flags}u`, flags]) {
    try {
      return new RegExp(source, f);
    } catch {
      // try the next flags
    }
  }
  return null;
}

/**
 * The `[start, end)` UTF-16 ranges of every match of `q` in `text`, in order, not overlapping,
 * none empty (a pattern that matches the empty string marks nothing there), at most `max`.
 */
export function findMatches(text: string, q: HighlightQuery | null, max = MAX_MARKS): [number, number][] {
  if (!q || !text) return [];
  const re = highlightRegExp(q);
  if (!re) return [];
  const out: [number, number][] = [];
  let m: RegExpExecArray | null;
  while (out.length < max && (m = re.exec(text)) !== null) {
    if (m[0].length === 0) {
      re.lastIndex = m.index + (re.unicode && (text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
      if (re.lastIndex > text.length) break;
      continue;
    }
    out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** A piece of a text split at its matches: `mark` true for a match. */
export interface MarkedPiece {
  text: string;
  mark: boolean;
}

/**
 * `text` cut into pieces at the `ranges` (sorted, not overlapping, as findMatches gives them): the
 * text between matches and the matches, in order; one unmarked piece when there is no match.
 */
export function splitAtMatches(text: string, ranges: readonly (readonly [number, number])[]): MarkedPiece[] {
  const out: MarkedPiece[] = [];
  let at = 0;
  for (const [s, e] of ranges) {
    if (s > at) out.push({ text: text.slice(at, s), mark: false });
    out.push({ text: text.slice(s, e), mark: true });
    at = e;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), mark: false });
  return out;
}

/**
 * The parts of `ranges` (offsets into the concatenation of `pieces`) that fall in each piece, as
 * offsets into that piece: how a match found in the visible text of terminal output (ANSI escapes
 * removed, colours split into spans) is marked span by span, across colour changes.
 */
export function rangesPerPiece(pieceLengths: readonly number[], ranges: readonly (readonly [number, number])[]): [number, number][][] {
  const out: [number, number][][] = pieceLengths.map(() => []);
  let k = 0;
  let base = 0;
  for (const [i, len] of pieceLengths.entries()) {
    const end = base + len;
    while (k < ranges.length && ranges[k][1] <= base) k++;
    for (let j = k; j < ranges.length && ranges[j][0] < end; j++) {
      const s = Math.max(ranges[j][0], base);
      const e = Math.min(ranges[j][1], end);
      if (e > s) out[i].push([s - base, e - base]);
    }
    base = end;
  }
  return out;
}
