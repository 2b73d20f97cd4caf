import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import { SearchError, byteToUtf16Offsets, searchRollouts, type SearchQuery, type SearchSummary } from '../../../src/core/search/workspaceSearch';
import { sample, tmpDir } from '../samples';

/** The real ripgrep (CI installs the `ripgrep` package; VS Code ships its own). A missing rg fails, never skips. */
const RG = process.env.RG_PATH ?? '/usr/bin/rg';

const SWE = sample('swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj');
const SWE2 = sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj');
const MINI = sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json');
const EVAL = sample('inspect/log_read_sample.eval');
const NEMO = sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl');
const ALL = [SWE, SWE2, MINI, EVAL, NEMO, sample('openhands/harbor-rfc_openhands_trajectory.json'), sample('atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json')];

/** [file basename, rollout index, step index] of every hit, sorted. */
function where(s: SearchSummary): string[] {
  return s.files
    .flatMap((f) => f.rollouts.flatMap((r) => r.steps.map((st) => `${path.basename(f.file)}#${r.rolloutIndex}:${st.stepIndex}`)))
    .sort();
}

async function search(q: SearchQuery, files = ALL, rgPath: string | null = RG): Promise<SearchSummary> {
  return searchRollouts(files, q, { rgPath });
}

describe('search: searchRollouts with the real ripgrep', () => {
  before(() => assert.ok(fs.existsSync(RG), `ripgrep is needed at ${RG} (apt install ripgrep, or set RG_PATH)`));

  it('finds a known command at its known steps (field: command)', async () => {
    const s = await search({ pattern: 'python reproduce.py', fields: ['command'] });
    assert.deepEqual(where(s), ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0:13', 'v0.7_default__marshmallow-code__marshmallow-1867.traj#0:7']);
    const hit = s.files[0].rollouts[0].steps[0];
    assert.equal(hit.matches[0].field, 'command');
    assert.equal(hit.matches[0].match, 'python reproduce.py');
    assert.equal(s.files[0].via, 'rg');
    // The steps really hold that command.
    const r = (await loadFile(SWE)).rollouts[0];
    assert.equal(r.steps[7].actions[0].command, 'python reproduce.py\n');
  });

  it('finds a command holding quotes (stored escaped in the JSON)', async () => {
    const s = await search({ pattern: 'find_file "fields.py" src', fields: ['command'] });
    assert.deepEqual(where(s), ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0:9']);
  });

  it('case: ignored by default, honoured when asked', async () => {
    assert.equal(where(await search({ pattern: 'PYTHON REPRODUCE.PY', fields: ['command'] })).length, 2);
    assert.equal(where(await search({ pattern: 'PYTHON REPRODUCE.PY', fields: ['command'], caseSensitive: true })).length, 0);
  });

  it('regex over commands: the edit commands of the SWE-agent rollout', async () => {
    const s = await search({ pattern: '^edit \\d+:\\d+', regex: true, fields: ['command'] });
    assert.deepEqual(where(s).filter((w) => w.startsWith('v0.7')), [
      'v0.7_default__marshmallow-code__marshmallow-1867.traj#0:11',
      'v0.7_default__marshmallow-code__marshmallow-1867.traj#0:12',
      'v0.7_default__marshmallow-code__marshmallow-1867.traj#0:6',
    ]);
  });

  it('output field: finds the printed value at its step, and not in commands', async () => {
    const s = await search({ pattern: 'Found 1 matches for "fields.py"', fields: ['output'] });
    assert.deepEqual(where(s), ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0:9']);
    assert.equal((await search({ pattern: 'Found 1 matches for "fields.py"', fields: ['command'] })).steps, 0);
  });

  it('role filter: a system-prompt phrase is found only in system steps when asked', async () => {
    const s = await search({ pattern: 'autonomous programmer', roles: ['system'] });
    assert.ok(where(s).includes('v0.7_default__marshmallow-code__marshmallow-1867.traj#0:0'), where(s).join());
    assert.equal((await search({ pattern: 'autonomous programmer', roles: ['agent'], fields: ['command'] })).steps, 0);
  });

  it('an Inspect .eval (zip) is searched by loading it', async () => {
    const s = await search({ pattern: 'something you would say', fields: ['message'] });
    const f = s.files.find((x) => x.file === EVAL);
    assert.ok(f, where(s).join());
    assert.equal(f.via, 'load');
    assert.deepEqual(f.rollouts[0].steps.map((x) => x.stepIndex), [1]);
  });

  it('reward filters keep only rollouts with a matching reward', async () => {
    const file = await loadFile(NEMO);
    const all = await search({ pattern: 'find', fields: ['command'] }, [NEMO]);
    const rewarded = await search({ pattern: 'find', fields: ['command'], minReward: 1 }, [NEMO]);
    const want = file.rollouts.map((r, i) => ({ r, i })).filter(({ r }) => (r.outcome.reward ?? -1) >= 1).map(({ i }) => i);
    const got = [...new Set(rewarded.files.flatMap((f) => f.rollouts.map((r) => r.rolloutIndex)))];
    assert.ok(all.files[0].rollouts.length > got.length, 'the filter removed some rollouts');
    for (const i of got) assert.ok(want.includes(i));
    const failed = await search({ pattern: 'find', fields: ['command'], outcome: 'failed' }, [NEMO]);
    for (const r of failed.files.flatMap((f) => f.rollouts)) assert.equal(file.rollouts[r.rolloutIndex].outcome.resolved === true, false);
  });

  it('without rg (every file loaded) the results are the same', async () => {
    for (const q of [{ pattern: 'python reproduce.py' }, { pattern: 'hello', fields: ['command' as const] }, { pattern: 'cat\\s+hello', regex: true }]) {
      assert.deepEqual(where(await search(q, ALL, null)), where(await search(q)), JSON.stringify(q));
    }
  });

  it('streams each file through onFile, reports progress, and stops at maxSteps', async () => {
    const seen: string[] = [];
    const prog: number[] = [];
    const s = await searchRollouts(ALL, { pattern: 'e', maxSteps: 5 }, { rgPath: RG, onFile: (f) => seen.push(f.file), onProgress: (p) => prog.push(p.filesDone) });
    assert.equal(s.steps, 5);
    assert.equal(s.truncated, true);
    assert.deepEqual(seen, s.files.map((f) => f.file));
    assert.ok(prog.length > 0);
  });

  it('a search cancelled before it starts returns nothing, marked cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    const s = await searchRollouts(ALL, { pattern: 'python' }, { rgPath: RG, signal: ac.signal });
    assert.equal(s.cancelled, true);
    assert.equal(s.steps, 0);
  });

  it('a bad regex and an empty pattern are SearchErrors; a missing rg is a SearchError', async () => {
    await assert.rejects(search({ pattern: '(unclosed', regex: true }), SearchError);
    await assert.rejects(search({ pattern: '' }), SearchError);
    await assert.rejects(search({ pattern: 'x' }, [SWE], path.join(tmpDir(), 'no-rg')), SearchError);
  });

  it('a file that cannot be loaded is reported, the others still searched', async () => {
    const bad = path.join(tmpDir(), 'broken.traj');
    fs.writeFileSync(bad, '{"trajectory": [ "python reproduce.py" ');
    const s = await search({ pattern: 'python reproduce.py', fields: ['command'] }, [bad, SWE]);
    assert.equal(s.steps, 2);
    assert.equal(s.errors.filter((e) => e.file === bad).length, 1);
  });

  it('byteToUtf16Offsets: multi-byte characters and a BOM', () => {
    const text = '\ufeffaé😀b';
    const bytes = new TextEncoder().encode(text);
    // bytes: BOM(3) a(1) é(2) 😀(4) b(1)
    assert.deepEqual(byteToUtf16Offsets(bytes, [3, 4, 6, 10]), [0, 1, 2, 4]);
  });
});

describe('search: regex over raw JSON', () => {
  it('anchors, \\n and \\s in a regex still find text that JSON stores escaped', async () => {
    const q = { pattern: '^python reproduce\\.py\\n$', regex: true, fields: ['command' as const] };
    const got = await searchRollouts([SWE], q, { rgPath: RG });
    const loaded = await searchRollouts([SWE], q, { rgPath: null });
    assert.equal(got.steps, 2);
    assert.deepEqual(where(got), where(loaded));
    const multi = await searchRollouts([SWE], { pattern: 'edit 1:1\\s+from marshmallow', regex: true, fields: ['command'] }, { rgPath: RG });
    assert.deepEqual(where(multi), ['v0.7_default__marshmallow-code__marshmallow-1867.traj#0:6']);
  });
});
