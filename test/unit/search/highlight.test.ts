/** The match finder behind the marks a search result's step shows (src/shared/highlight.ts). */
import * as assert from 'node:assert/strict';
import { findMatches, highlightRegExp, rangesPerPiece, splitAtMatches, type HighlightQuery } from '../../../src/shared/highlight';
import { parseAnsi } from '../../../src/shared/ansi';

const lit = (pattern: string, caseSensitive = false): HighlightQuery => ({ pattern, regex: false, caseSensitive });
const re = (pattern: string, caseSensitive = false): HighlightQuery => ({ pattern, regex: true, caseSensitive });

describe('search highlight: the matches to mark', () => {
  it('finds a literal as typed (regex characters are literal), ignoring case unless asked', () => {
    assert.deepEqual(findMatches('pytest -x; PYTEST -x', lit('pytest -x')), [[0, 9], [11, 20]]);
    assert.deepEqual(findMatches('pytest -x; PYTEST -x', lit('PYTEST', true)), [[11, 17]]);
    assert.deepEqual(findMatches('a.b axb a.b', lit('a.b')), [[0, 3], [8, 11]]);
    assert.deepEqual(findMatches('(x) [y]', lit('[y]')), [[4, 7]]);
  });

  it('finds a regular expression as the search used it, and nothing for an empty or broken one', () => {
    assert.deepEqual(findMatches('exit code 0\nexit code: 2', re('exit code:? [1-9]')), [[12, 24]]);
    assert.deepEqual(findMatches('Error error', re('^e', true)), []);
    assert.deepEqual(findMatches('Error error', re('e\\w+', true)), [[6, 11]]);
    assert.deepEqual(findMatches('Error error', re('e\\w+')), [[0, 5], [6, 11]]);
    assert.deepEqual(findMatches('aaa', re('x*')), [], 'a pattern that matches the empty string marks nothing');
    assert.deepEqual(findMatches('abc', re('(')), []);
    assert.equal(highlightRegExp(lit('')), null);
    assert.deepEqual(findMatches('abc', null), []);
  });

  it('counts in UTF-16 code units like the DOM: astral characters, accents and case folding of non-ASCII', () => {
    const t = '🙂 café CAFÉ 🙂';
    assert.deepEqual(findMatches(t, lit('café')), [[3, 7], [8, 12]]);
    assert.deepEqual(findMatches(t, lit('🙂')), [[0, 2], [13, 15]]);
    assert.deepEqual(findMatches(t, re('\\p{Emoji_Presentation}')), [[0, 2], [13, 15]], 'a /u regex: one match per emoji, not per half');
    assert.deepEqual(findMatches('🙂🙂', re('(?:)')), [], 'an empty match steps over a surrogate pair');
    const s = splitAtMatches(t, findMatches(t, lit('café')));
    assert.deepEqual(s.map((p) => [p.text, p.mark]), [['🙂 ', false], ['café', true], [' ', false], ['CAFÉ', true], [' 🙂', false]]);
    assert.deepEqual(splitAtMatches('none', []), [{ text: 'none', mark: false }]);
  });

  it('stops at a limit of marks', () => {
    assert.equal(findMatches('a'.repeat(5000), lit('a')).length, 1000);
    assert.equal(findMatches('a'.repeat(50), lit('a'), 7).length, 7);
  });

  it('marks a match across ANSI colour changes: found in the visible text, split span by span', () => {
    // "FAILED" written as red "FAIL" + bold "ED", then "tests/x.py" in the default colour.
    const out = '\x1b[31mFAIL\x1b[0m\x1b[1mED\x1b[0m tests/x.py';
    const [line] = parseAnsi(out);
    const visible = line.map((sp) => sp.text).join('');
    assert.equal(visible, 'FAILED tests/x.py', 'the escapes are not part of the text searched');
    const ranges = findMatches(visible, lit('failed t'));
    assert.deepEqual(ranges, [[0, 8]]);
    const per = rangesPerPiece(line.map((sp) => sp.text.length), ranges);
    assert.deepEqual(
      line.map((sp, i) => per[i].map(([a, b]) => sp.text.slice(a, b))),
      [['FAIL'], ['ED'], [' t']],
    );
    assert.deepEqual(rangesPerPiece([3, 3, 3], [[1, 2], [4, 8]]), [[[1, 2]], [[1, 3]], [[0, 2]]]);
    assert.deepEqual(rangesPerPiece([2, 2], []), [[], []]);
  });
});
