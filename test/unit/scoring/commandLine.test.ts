/** The scorer command line of Select Scorer (src/core/scoring/commandLine.ts). */
import * as assert from 'node:assert/strict';
import { parseCommandLine } from '../../../src/core/scoring/commandLine';

describe('scorer command line (Select Scorer)', () => {
  it('takes words with "…" quoting or a JSON array as in settings.json; rejects what is neither', () => {
    assert.deepEqual(parseCommandLine('python3 /a/ti-scorer --backend toy'), ['python3', '/a/ti-scorer', '--backend', 'toy']);
    assert.deepEqual(parseCommandLine('"/opt/my scorer/run" --x'), ['/opt/my scorer/run', '--x']);
    assert.deepEqual(parseCommandLine(' ["/usr/bin/python3", "/a/ti-scorer", "--backend", "hf"] '), ['/usr/bin/python3', '/a/ti-scorer', '--backend', 'hf']);
    assert.equal(parseCommandLine('["python3", 3]'), null);
    assert.equal(parseCommandLine('[broken'), null);
    assert.equal(parseCommandLine('   '), null);
  });
});
