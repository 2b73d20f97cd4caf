import * as assert from 'node:assert/strict';
import { loadPath } from '../../../src/core/load';
import { showJson, writeShowJson } from '../../../src/cli/showJson';
import { SAMPLES_DIR, sample } from '../samples';

async function streamed(target: string, sinkAsync = false): Promise<string> {
  const parts: string[] = [];
  await writeShowJson(await loadPath(target), (c) => {
    parts.push(c);
    return sinkAsync ? new Promise<void>((r) => setImmediate(r)) : undefined;
  });
  return parts.join('');
}

describe('show --json streamed (cli/showJson.ts writeShowJson)', () => {
  it('writes the same text as JSON.stringify of the whole document, for every sample folder', async function () {
    this.timeout(600_000);
    for (const dir of ['atif', 'openai-chat', 'openai-responses', 'swe-agent', 'harbor-trial-result', 'inspect', 'asciicast']) {
      const target = `${SAMPLES_DIR}/${dir}`;
      const whole = JSON.stringify(showJson(await loadPath(target)), null, 2) + '\n';
      assert.equal(await streamed(target), whole, dir);
    }
  });
  it('waits on a sink that is full, and writes empty arrays as JSON.stringify does', async () => {
    const file = sample('atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json');
    const text = await streamed(file, true);
    assert.equal(text, JSON.stringify(showJson(await loadPath(file)), null, 2) + '\n');
    assert.match(text, /"skipped": \[\]/);
  });
  it('writes an empty result (a folder of nothing readable) as an empty document', async () => {
    const empty = { files: [], failures: [], skipped: [] };
    const parts: string[] = [];
    await writeShowJson(empty, (c) => void parts.push(c));
    assert.equal(parts.join(''), JSON.stringify(showJson(empty), null, 2) + '\n');
  });
});
