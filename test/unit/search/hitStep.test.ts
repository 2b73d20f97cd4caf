/**
 * Find in Dump's hit → step (issue 21 item 2) on a real OpenAI Responses dump (nemo-gym), whose rows
 * keep an assistant message and its function_call as separate items: a hit inside the call's
 * arguments lies outside every step's source range, and was opened at step #1. Each hit must land on
 * a step whose own text holds the query; the preview reads as the agent saw it.
 */
import * as assert from 'node:assert/strict';
import { buildIndex } from '../../../src/core/scale/rolloutIndex';
import { loadRow, readRange } from '../../../src/core/scale/rowLoad';
import { searchFile } from '../../../src/core/scale/fileSearch';
import { decodePreview, stepForHit } from '../../../src/core/search/hitStep';
import { matchStep, queryRegExp } from '../../../src/core/search/workspaceSearch';
import { sample } from '../samples';

describe('Find in Dump: the step of a hit (issue 21 item 2)', () => {
  const file = sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl');

  for (const query of ['git diff -- ./sklearn', 'git diff django/db', 'cat <<']) {
    it(`every hit of "${query}" opens a step whose text holds it`, async () => {
      const index = await buildIndex(file);
      const { hits } = await searchFile(file, query, { entries: index.entries });
      assert.ok(hits.length > 0, 'the sample holds the text');
      const re = queryRegExp({ pattern: query });
      let outsideRanges = 0;
      for (const h of hits) {
        const e = index.entries[h.rollout!];
        const r = await loadRow(file, index.format, e);
        const at = e.offset + (await readRange(file, e.offset, h.offset - e.offset)).toString('utf8').length;
        if (!r.steps.some((s) => s.range && s.range.start <= at && at < s.range.end)) outsideRanges++;
        const st = stepForHit(r, at, re);
        const step = r.steps.find((s) => s.index === st)!;
        assert.ok(matchStep(step, re).length > 0, `hit at byte ${h.offset} (rollout ${h.rollout! + 1}) → step #${st! + 1}, which does not hold "${query}"`);
      }
      if (query === 'git diff -- ./sklearn') assert.ok(outsideRanges > 0, 'some hit lies outside every step range (the case that opened step #1)');
    });
  }

  it('decodes the raw preview: escapes undone, one line', () => {
    assert.equal(decodePreview('{"command": \\"git diff -- a.py\\\\n\\"}\\nnext\\tline \\u00e9'), '{"command": "git diff -- a.py\\n"}\nnext line é'.replace(/\s+/g, ' '));
    assert.equal(decodePreview('plain text'), 'plain text');
  });
});
