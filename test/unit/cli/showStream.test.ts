import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadPath } from '../../../src/core/load';
import { countedSteps } from '../../../src/core/model';
import { fileTitle } from '../../../src/core/naming';
import { showJson, type ShowJson } from '../../../src/cli/showJson';
import { openStreamed, showStreamed } from '../../../src/cli/showStream';
import { rolloutHeadText, stepText } from '../../../src/cli/showText';
import { sample, sampleJson, tmpDir } from '../samples';

const ATIF = [
  'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json',
  'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json',
  'atif/trajectory.summarization-1-summary.json',
];
const DUMPS = [
  'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl',
  'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl',
  'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl',
];

/** `show` of `file` streamed from 0 bytes on: its output, exit code and the stderr lines it wrote. */
async function streamed(file: string, json: boolean, window = 2): Promise<{ text: string; code: number; stderr: string[] }> {
  const s = await openStreamed(file, 0);
  assert.ok(s, `${file} is streamed`);
  const parts: string[] = [];
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((c: string) => {
    stderr.push(c);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await showStreamed(s, json, (c) => void parts.push(c), { window, minBytes: 0 });
    return { text: parts.join(''), code, stderr };
  } finally {
    process.stderr.write = write;
  }
}

/** The text `show` prints for a full load of a single file (main.ts). */
async function fullText(file: string): Promise<string> {
  const f = (await loadPath(file)).files[0];
  const tasks = new Set(f.rollouts.map((r) => r.task.id));
  const single = tasks.size === 1 ? [...tasks][0] : null;
  return f.rollouts
    .map((r) => {
      const counted = countedSteps(r);
      const title = f.rollouts.length === 1 ? fileTitle(f.path, single) : r.task.id ?? fileTitle(f.path, null);
      return rolloutHeadText(r, title, counted, r.steps.length - counted) + r.steps.map(stepText).join('');
    })
    .join('');
}

/** The streamed document and the full load's agree but for the warning that says how the file was read. */
async function sameAsFullLoad(file: string, how: RegExp, window = 2): Promise<void> {
  const full = showJson(await loadPath(file));
  const out = await streamed(file, true, window);
  assert.equal(out.code, 0);
  const doc = JSON.parse(out.text) as ShowJson;
  assert.deepEqual({ ...doc, warnings: [] }, { ...full, warnings: [] }, file);
  assert.match(doc.warnings[0].message, how);
  assert.deepEqual(doc.warnings.slice(1), full.warnings, `${file}: the other warnings are the full load's`);
  const text = await streamed(file, false, window);
  assert.equal(text.text, await fullText(file), `${file} as text`);
  assert.match(text.stderr.join(''), how);
}

describe('show of a big file, written as it is read (cli/showStream.ts)', function () {
  this.timeout(120_000);

  it('gives the document and the text of a full load for every ATIF sample, read 2 or 1000 steps at a time, and says what was not checked', async () => {
    for (const s of ATIF) {
      await sameAsFullLoad(sample(s), /read 2 steps at a time \(step timestamps and step_id order not checked over the file/, 2);
      await sameAsFullLoad(sample(s), /read 1000 steps at a time/, 1000);
    }
  });

  it('gives the document and the text of a full load for every JSONL dump sample, read a row at a time', async () => {
    for (const s of DUMPS) await sameAsFullLoad(sample(s), /read one row at a time \(step timestamps not checked over the file\)/);
  });

  it('a dump: repeated ids made unique and bad rows left out as a full load does; the exit code is 1', async () => {
    const lines = fs.readFileSync(sample(DUMPS[0]), 'utf8').split('\n').filter(Boolean);
    const file = path.join(tmpDir(), 'dump.jsonl');
    fs.writeFileSync(file, [lines[0], '{"not": "a row"', lines[0], lines[1] ?? lines[0], '', 'null'].join('\r\n') + '\r\n');
    const full = showJson(await loadPath(file));
    const out = await streamed(file, true);
    assert.equal(out.code, 1);
    const doc = JSON.parse(out.text) as ShowJson;
    assert.deepEqual({ ...doc, warnings: [] }, { ...full, warnings: [] });
    assert.equal(doc.errors.length, 1);
    assert.ok(new Set(doc.rollouts.map((r) => r.id)).size === doc.rollouts.length, 'ids are unique');
  });

  it('an ATIF step that does not conform ends the steps where it is: an error, a warning of how many were shown, exit code 1', async () => {
    const src = sampleJson(ATIF[1]);
    src.steps[3].source = 42;
    const file = path.join(tmpDir(), 'trajectory.json');
    fs.writeFileSync(file, JSON.stringify(src, null, 2));
    const out = await streamed(file, true, 2);
    assert.equal(out.code, 1);
    const doc = JSON.parse(out.text) as ShowJson;
    assert.equal(doc.rollouts[0].steps.length, 2);
    assert.match(doc.errors[0].message, /\/steps\/3/);
    assert.ok(doc.warnings.some((w) => /the first 2 steps shown/.test(w.message)));
  });

  it('leaves to a full load a folder, a smaller file and a file that cannot be read by parts', async () => {
    assert.equal(await openStreamed(path.dirname(sample(ATIF[0])), 0), null);
    assert.equal(await openStreamed(sample(ATIF[0])), null, 'under 64 MiB');
    assert.equal(await openStreamed(sample('process-labels/processbench_gsm8k.json'), 0), null, 'a JSON array of rows');
    assert.equal(await openStreamed(sample('openai-chat/harbor-golden_terminus2_invalid-json.traces.json'), 0), null);
    assert.equal(await openStreamed(path.join(tmpDir(), 'missing.jsonl'), 0), null);
  });
});
