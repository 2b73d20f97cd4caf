import * as assert from 'node:assert/strict';
import { describeQuery, parseSearchText } from '../../../src/core/search/queryText';
import { SearchError } from '../../../src/core/search/workspaceSearch';

describe('search: the one-line query syntax', () => {
  it('reads text and filters', () => {
    assert.deepEqual(parseSearchText('pytest -x in:command role:agent outcome:failed reward<0.5'), {
      pattern: 'pytest -x',
      fields: ['command'],
      roles: ['agent'],
      outcome: 'failed',
      maxReward: 0.5,
    });
    assert.deepEqual(parseSearchText('/exit code [1-9]/ in:output,message case:yes'), { pattern: 'exit code [1-9]', regex: true, fields: ['output', 'message'], caseSensitive: true });
    assert.deepEqual(parseSearchText('"in:command is text" reward>=1'), { pattern: 'in:command is text', minReward: 1 });
    assert.deepEqual(parseSearchText('/a\\/b/i'), { pattern: 'a\\/b', regex: true, caseSensitive: false });
    assert.deepEqual(parseSearchText('cat hello.txt outcome:resolved'), { pattern: 'cat hello.txt', outcome: 'passed' });
  });

  it('rejects bad filters and an empty search with the word at fault', () => {
    assert.throws(() => parseSearchText('x in:commands'), (e: Error) => e instanceof SearchError && e.message.includes('in:commands'));
    assert.throws(() => parseSearchText('x role:bot'), SearchError);
    assert.throws(() => parseSearchText('in:command'), SearchError);
    assert.throws(() => parseSearchText('x case:maybe'), SearchError);
  });

  it('describes a query', () => {
    assert.equal(describeQuery(parseSearchText('pytest in:command role:agent outcome:failed reward>=0.5')), '"pytest" in command · agent · failed · reward ≥ 0.5');
  });
});
