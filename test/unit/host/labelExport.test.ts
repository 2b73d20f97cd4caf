/**
 * The Export Labels command's host logic (src/host/labelExport.ts): the summary of an export says
 * how neutral (0) labels were written, so a TRL or ProcessBench export never turns them into
 * `false` / an error silently; the question offers each mapping in the format's own terms. Source:
 * the real AgentProcessBench rows (reference labels with neutral steps).
 */
import * as assert from 'node:assert/strict';
import { REFERENCE, referenceLabels } from '../../../src/core/labels/select';
import { loadFile } from '../../../src/core/load';
import { exportFileLabels, neutralCount, neutralItems } from '../../../src/host/labelExport';
import { sample } from '../samples';

const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

describe('host label export: the neutral mapping is shown', () => {
  it('says in the summary how many neutral labels became what', async () => {
    const { rollouts } = await loadFile(sample(APB));
    const neutrals = neutralCount(rollouts.map(referenceLabels));
    assert.ok(neutrals > 0, 'the sample has neutral reference labels');
    const trl = exportFileLabels(rollouts, [], REFERENCE, 'trl', 'negative');
    assert.match(trl.summary, new RegExp(`${neutrals} neutral label\\(s\\) written as \`false\``));
    assert.match(exportFileLabels(rollouts, [], REFERENCE, 'trl', 'drop').summary, /neutral label\(s\) written as no label/);
    assert.match(exportFileLabels(rollouts, [], REFERENCE, 'processbench', 'negative').summary, /neutral label\(s\) written as an error/);
    // AgentProcessBench keeps 0: nothing to say.
    assert.doesNotMatch(exportFileLabels(rollouts, [], REFERENCE, 'agentprocessbench', 'negative').summary, /neutral/);
  });

  it('offers every mapping in the format\'s terms, the current one first', () => {
    const items = neutralItems('trl', 'negative');
    assert.deepEqual(items.map((i) => i.neutral), ['negative', 'positive', 'drop']);
    assert.match(items[0].label, /`false`/);
    assert.match(items[1].label, /`true`/);
    assert.deepEqual(neutralItems('processbench', 'drop').map((i) => i.neutral), ['drop', 'negative', 'positive']);
  });
});
