/**
 * The one-line search syntax of "Search Rollouts…": text to find plus optional filters, e.g.
 *
 *   `pytest -x in:command role:agent outcome:failed reward<0.5`
 *   `/exit code [1-9]/ in:output case:yes`
 *   `"No such file" in:output,message`
 *
 * - `/…/` is a regular expression (`/…/i` ignores case, the default; `case:yes` honours it);
 *   `"…"` keeps spaces and filter-like words as text; other words are joined by single spaces.
 * - `in:` fields (command, output, message, reasoning; comma-separated), `role:` roles (agent, user,
 *   system, environment), `outcome:` passed / failed / unknown, `reward>=x` `reward<=x` (`>` `<` too,
 *   read as ≥ ≤), `case:yes|no`, `regex:yes|no`.
 *
 * Pure; unit-tested. Throws SearchError with the offending word for a bad filter.
 */
import type { Role } from '../model';
import { SEARCH_FIELDS, SearchError, type SearchField, type SearchOutcome, type SearchQuery } from './workspaceSearch';

const ROLES: readonly Role[] = ['agent', 'user', 'system', 'environment'];
const OUTCOMES: readonly SearchOutcome[] = ['all', 'passed', 'failed', 'unknown'];

function yes(v: string, word: string): boolean {
  if (/^(yes|true|on|1)$/i.test(v)) return true;
  if (/^(no|false|off|0)$/i.test(v)) return false;
  throw new SearchError(`"${word}": expected yes or no`);
}

/** Parses the search line into a query (see the module comment). */
export function parseSearchText(text: string): SearchQuery {
  const q = parseQueryWords(text);
  if (!q.pattern) throw new SearchError('Nothing to search for: type some text (filters such as in:command alone are not a search).');
  return q;
}

/**
 * Parses the same syntax without asking for text to find: the Rollouts view's filter box (Filter
 * Rollouts…) reads `outcome:failed reward>=0.5 some task` with it, so one query syntax serves every
 * box. `pattern` is '' when the line holds filters only. Throws SearchError for a bad filter word.
 */
export function parseQueryWords(text: string): SearchQuery {
  const q: SearchQuery = { pattern: '' };
  const words: string[] = [];
  let caseSet: boolean | null = null;
  const re = /\/((?:\\.|[^/\\])+)\/(i?)(?=\s|$)|"((?:\\.|[^"\\])*)"|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== undefined) {
      q.regex = true;
      words.push(m[1]);
      if (m[2] === 'i') caseSet = false;
      continue;
    }
    if (m[3] !== undefined) {
      words.push(m[3].replace(/\\(.)/g, '$1'));
      continue;
    }
    const w = m[4];
    const kv = /^(in|field|fields|role|roles|outcome|case|regex):(.*)$/i.exec(w);
    const rw = /^reward(>=|<=|>|<|=)(-?\d+(?:\.\d+)?|-?\.\d+)$/i.exec(w);
    if (kv) {
      const key = kv[1].toLowerCase();
      const vals = kv[2].split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
      if (!vals.length) throw new SearchError(`"${w}": a value is missing`);
      if (key === 'in' || key === 'field' || key === 'fields') {
        for (const v of vals) if (!(SEARCH_FIELDS as readonly string[]).includes(v)) throw new SearchError(`"${w}": fields are ${SEARCH_FIELDS.join(', ')}`);
        q.fields = [...(q.fields ?? []), ...(vals as SearchField[])];
      } else if (key === 'role' || key === 'roles') {
        for (const v of vals) if (!(ROLES as readonly string[]).includes(v)) throw new SearchError(`"${w}": roles are ${ROLES.join(', ')}`);
        q.roles = [...(q.roles ?? []), ...(vals as Role[])];
      } else if (key === 'outcome') {
        const v = vals[0] === 'resolved' ? 'passed' : vals[0];
        if (!(OUTCOMES as readonly string[]).includes(v)) throw new SearchError(`"${w}": outcomes are passed, failed, unknown`);
        q.outcome = v as SearchOutcome;
      } else if (key === 'case') caseSet = yes(vals[0], w);
      else if (key === 'regex') q.regex = yes(vals[0], w);
    } else if (rw) {
      const x = Number(rw[2]);
      if (rw[1] === '>=' || rw[1] === '>') q.minReward = x;
      else if (rw[1] === '<=' || rw[1] === '<') q.maxReward = x;
      else {
        q.minReward = x;
        q.maxReward = x;
      }
    } else words.push(w);
  }
  q.pattern = words.join(' ');
  if (caseSet !== null) q.caseSensitive = caseSet;
  return q;
}

/** A short description of a query, for the results view (`"pytest" in command · agent · failed · reward ≥ 0.5`). */
export function describeQuery(q: SearchQuery): string {
  const parts = [q.regex ? `/${q.pattern}/` : `"${q.pattern}"`];
  if (q.fields?.length) parts[0] += ` in ${q.fields.join(', ')}`;
  if (q.caseSensitive) parts.push('match case');
  if (q.roles?.length) parts.push(q.roles.join(', '));
  if (q.outcome && q.outcome !== 'all') parts.push(q.outcome);
  if (q.minReward !== undefined && q.minReward !== null) parts.push(`reward ≥ ${q.minReward}`);
  if (q.maxReward !== undefined && q.maxReward !== null) parts.push(`reward ≤ ${q.maxReward}`);
  return parts.join(' · ');
}
