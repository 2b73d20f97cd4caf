/** Score cache keys (src/core/scoring/cache.ts): the scorer's options are part of its identity. */
import * as assert from 'node:assert/strict';
import { cacheKey, canonicalOptions, identityOf, ScoreCache } from '../../../src/core/scoring/cache';
import { tmpDir } from '../samples';

const info = {
  protocolVersion: 1 as const,
  scorer: { name: 'ti-scorer-python/hf', version: '0.1.0' },
  model: '/models/prm',
  device: 'cuda:0',
  scoreRange: [0, 1] as [number, number],
  maxBatchRollouts: 8,
  maxBatchSteps: 1000,
  capabilities: { progress: true, cancel: true, explanations: false, labels: false },
};

describe('score cache keys', () => {
  it('options change the key (canonical: key order does not); no options keep the key it always had', () => {
    assert.equal(canonicalOptions({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } }), '{"a":{"c":2,"d":[1,{"y":2,"z":1}]},"b":1}');
    assert.equal(canonicalOptions(undefined), '');
    assert.equal(canonicalOptions({}), '');
    const plain = identityOf(info as never);
    assert.equal(cacheKey(plain, 'h'), JSON.stringify(['ti-scorer-python/hf', '0.1.0', '/models/prm', [0, 1], 'h']));
    const a = identityOf(info as never, { positiveIndex: 1, separator: '\n\n' });
    const b = identityOf(info as never, { separator: '\n\n', positiveIndex: 1 });
    const c = identityOf(info as never, { positiveIndex: 0, separator: '\n\n' });
    assert.equal(cacheKey(a, 'h'), cacheKey(b, 'h'));
    assert.notEqual(cacheKey(a, 'h'), cacheKey(c, 'h'));
    assert.notEqual(cacheKey(a, 'h'), cacheKey(plain, 'h'));
  });

  it('scores cached under one set of options are not read under another', async () => {
    const cache = new ScoreCache(tmpDir('cache'));
    const steps = [{ index: 0, value: 0.1, label: null, explanation: null }];
    await cache.put(identityOf(info as never, { value: 0.1 }), 'h', steps);
    assert.deepEqual(await cache.get(identityOf(info as never, { value: 0.1 }), 'h'), steps);
    assert.equal(await cache.get(identityOf(info as never, { value: 0.9 }), 'h'), null);
    assert.equal(await cache.get(identityOf(info as never), 'h'), null);
  });
});
