/**
 * SWE-agent trajectory dataset rows (src/core/formats/sweTrajRows.ts) on the real 5-row sample of
 * nebius/SWE-agent-trajectories in ../shared/format-census/swe-traj-datasets. Expected values are
 * read out of the file by the tests; the JSONL and bad-row inputs are that file's rows rewritten.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOADERS } from '../../../src/core/formats/registry';
import { sweTrajRowsLoader, thoughtAction } from '../../../src/core/formats/sweTrajRows';
import { loadFile } from '../../../src/core/load';
import { buildIndex } from '../../../src/core/scale/rolloutIndex';
import { acceptedBy, censusFile, rangeValue, sample, tmpDir } from '../samples';

const NEBIUS = 'swe-traj-datasets/nebius_SWE-agent-trajectories.sample_raw.json';
const rows = (): any[] => JSON.parse(fs.readFileSync(censusFile(NEBIUS), 'utf8'));

/** The command of a SWE-agent reply as the test reads it: the body of its last ``` block. */
function lastBlock(text: string): string | null {
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```\s*$/gm)];
  return blocks.length ? blocks[blocks.length - 1][1].replace(/\s+$/, '') : null;
}

describe('formats/sweTrajRows (nebius/SWE-agent-trajectories)', () => {
  it('reads every row: id and task from instance_id, resolved from target, status from exit_status, model_name', async () => {
    const want = rows();
    const loaded = await loadFile(censusFile(NEBIUS));
    assert.equal(loaded.format, 'swe-traj-rows');
    assert.equal(loaded.issues, undefined);
    assert.deepEqual(
      loaded.rollouts.map((r) => [r.id, r.task.id, r.outcome.resolved, r.outcome.status, r.outcome.source, r.agent.model, r.agent.name]),
      want.map((w) => [w.instance_id, w.instance_id, w.target, w.exit_status, 'target', w.model_name, 'SWE-agent']),
    );
    loaded.rollouts.forEach((r, k) => {
      assert.equal(r.metadata.generatedPatch, want[k].generated_patch);
      assert.equal(r.metadata.evalLogsChars, want[k].eval_logs.length);
      assert.equal(r.task.instruction, want[k].trajectory[1].text);
      assert.equal(r.steps[0].role, 'system');
      assert.equal(r.steps[0].message, want[k].trajectory[0].system_prompt);
    });
  });

  it('commands in order from each ai turn (the last ``` block), observations from the following user turns, submit → finish', async () => {
    const want = rows();
    const text = fs.readFileSync(censusFile(NEBIUS), 'utf8');
    const loaded = await loadFile(censusFile(NEBIUS));
    loaded.rollouts.forEach((r, k) => {
      const traj: any[] = want[k].trajectory;
      const agents = r.steps.filter((s) => s.role === 'agent');
      const ai = traj.map((t, i) => [t, i] as const).filter(([t]) => t.role === 'ai');
      assert.equal(agents.length, ai.length);
      agents.forEach((s, j) => {
        const [t, i] = ai[j];
        assert.equal(s.sourceId, i);
        assert.equal(s.message, t.text);
        assert.deepEqual(rangeValue(text, s), t);
        assert.equal(s.actions[0]?.command, lastBlock(t.text), `row ${k} turn ${i}`);
        const next = traj[i + 1];
        if (s.actions[0]?.kind === 'finish' || !next) assert.deepEqual(s.observations, []);
        else assert.deepEqual([s.observations[0].output, s.observations[0].exitCode], [next.text, null]);
      });
      assert.equal(agents[agents.length - 1].actions[0].kind, 'finish');
      assert.equal(agents[agents.length - 1].actions[0].command, 'submit');
    });
    // Row 0: `edit 5:5` edits the file the preceding `open` showed; the shell's cwd from the prompt line.
    const r0 = loaded.rollouts[0];
    const edit = r0.steps.flatMap((s) => s.actions).find((a) => a.command?.startsWith('edit 5:5'))!;
    assert.equal(edit.kind, 'file_edit');
    const opened = /\(Open file: ([^)]+)\)/.exec(want[0].trajectory[7].text)![1];
    assert.equal(edit.path, opened);
    assert.equal(opened, '/plumbum/plumbum/cli/image.py');
    assert.equal(r0.environment.workdir, '/plumbum');
    assert.equal(r0.steps[2].observations[0].cwd, '/plumbum');
  });

  it('ThoughtActionParser: the last top-level block is the action, the rest the thought; no block → null', () => {
    const t = thoughtAction('DISCUSSION\nFirst look.\n```\nls -a\n```\nthen more');
    assert.deepEqual(t, { thought: 'DISCUSSION\nFirst look.\nthen more', action: 'ls -a' });
    assert.equal(thoughtAction('no command at all')?.action, undefined);
    assert.equal(thoughtAction('```python\nx = 1\n```\nand\n```\npython x.py\n```')?.action, 'python x.py');
  });

  it('is the only loader for these rows, and does not take SWE-agent .traj files', () => {
    assert.deepEqual(acceptedBy(LOADERS, censusFile(NEBIUS), fs.readFileSync(censusFile(NEBIUS), 'utf8')), ['swe-traj-rows']);
    for (const f of ['swe-agent/6e44b9__sweagenttestrepo-1c2844.traj', 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj']) {
      assert.deepEqual(acceptedBy([sweTrajRowsLoader], sample(f), fs.readFileSync(sample(f), 'utf8')), [], f);
    }
  });

  it('JSONL of the rows: one rollout per line, the lazy index agrees; a bad row is a located issue and the rest load', async () => {
    const want = rows();
    const dir = tmpDir();
    const file = path.join(dir, 'nebius.jsonl');
    fs.writeFileSync(file, want.map((w) => JSON.stringify(w)).join('\n') + '\n');
    const full = await loadFile(file);
    assert.deepEqual(full.rollouts.map((r) => [r.id, r.source.line]), want.map((w, i) => [w.instance_id, i + 1]));
    const index = await buildIndex(file, { chunkBytes: 4096 });
    assert.deepEqual(index.entries.map((e) => [e.id, e.resolved, e.steps]), full.rollouts.map((r) => [r.id, r.outcome.resolved, r.steps.length]));

    const bad = path.join(dir, 'bad.jsonl');
    const broken = { ...want[1], trajectory: [{ role: 'user', text: 5 }] };
    fs.writeFileSync(bad, [want[0], broken, want[2]].map((w) => JSON.stringify(w)).join('\n') + '\n');
    const part = await loadFile(bad);
    assert.deepEqual(part.rollouts.map((r) => r.id), [want[0].instance_id, want[2].instance_id]);
    assert.equal(part.issues?.length, 1);
    assert.deepEqual([part.issues![0].line, part.issues![0].pointer], [2, '/trajectory/0/text']);
  });
});
