/**
 * Fidelity of formats already read (issue 13 item 2): task ids from a row's own metadata before any
 * index, derived values listed in `Rollout.derived` rather than shown as recorded, copied-context
 * steps not counted as new steps, "skipped" meaning skipped, and two older layouts that load: the
 * bare message-list mini-swe-agent `.traj.json` and OpenHands resolver `output.jsonl` rows.
 *
 * Real files from ../shared: the NeMo-Gym rollouts (samples/openai-responses/), the Harbor
 * summarization trajectory with copied context (samples/atif/), the mini-swe-agent RFC trajectory
 * (samples/mini-swe-agent/), the OpenHands RFC events (samples/openhands/). No resolver output,
 * no bare-list .traj.json and no NeMo-Gym row with `responses_create_params.metadata` is in
 * ../shared: those tests rebuild the shape of the public files named in each test (NVIDIA-NeMo/Gym
 * `responses_api_agents/swe_agents/data/example_terminal.jsonl`, SWE-agent/mini-swe-agent
 * `tests/test_data/local.traj.json`, All-Hands-AI/OpenHands
 * `tests/unit/resolver/mock_output/output.jsonl`) around the real content of shared samples.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile, loadPath } from '../../../src/core/load';
import { countedSteps } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { toScoreRollout } from '../../../src/core/scoring/input';
import { summarize } from '../../../src/host/rolloutSummary';
import { FAST_SUMMARIZERS } from '../../../src/core/scale/rowSummary';
import { summarizeGroup } from '../../../src/core/compare/group';
import { sample, sampleJson, sampleJsonl, tmpDir } from '../samples';

const NEMO_SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';
const NEMO_MULTI = 'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl';
const SUMMARY = 'atif/trajectory.summarization-1-summary.json';
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
const OH_EVENTS = 'openhands/harbor-rfc_openhands_trajectory.json';

function writeJsonl(name: string, rows: unknown[]): string {
  const f = path.join(tmpDir('ti-fidelity-'), name);
  fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
}

/** Every fast summary of a JSONL file's rows (the Rollouts view's scale path). */
function fastSummaries(file: string): { baseId: string; taskId: string | null; resolved: boolean | null }[] {
  const fast = FAST_SUMMARIZERS['openai-responses']!;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => fast(Buffer.from(l), file, i + 1));
}

describe('fidelity: NeMo-Gym task ids from the row\'s own metadata', () => {
  it('reads responses_create_params.metadata.instance_id (the swe_agents inputs\' shape) before the task index, in the loader and the scale summary', async () => {
    const rows = sampleJsonl(NEMO_SWE).map((r: any) => {
      const x = structuredClone(r);
      // The id moves from the row's top level and metadata into responses_create_params.metadata.
      const id = x.instance_id;
      delete x.instance_id;
      delete x.metadata.instance_id;
      x.responses_create_params.metadata = { instance_id: id, dataset_name: 'swe-bench', split: 'test' };
      return x;
    });
    const file = writeJsonl('rollouts.jsonl', rows);
    const f = await loadFile(file);
    const want = sampleJsonl(NEMO_SWE).map((r: any) => r.instance_id);
    assert.deepEqual(f.rollouts.map((r) => r.task.id), want);
    assert.deepEqual(f.rollouts.map((r) => r.derived ?? []), want.map(() => []), 'a recorded id is not derived');
    // The SWE-bench eval report is keyed by that id: resolved still read from it.
    assert.deepEqual(f.rollouts.map((r) => r.outcome.resolved), sampleJsonl(NEMO_SWE).map((r: any) => r.metadata.eval_report[r.instance_id].resolved));
    const fast = fastSummaries(file);
    assert.deepEqual(fast.map((s) => s.taskId), want);
    assert.deepEqual(fast.map((s) => s.baseId), f.rollouts.map((r) => r.id));
  });

  it('reads an instance_dict JSON string and instance_config; the task index only stands in when no id is recorded, and is marked derived', async () => {
    const [a, b] = sampleJsonl(NEMO_SWE);
    const withDict = structuredClone(a);
    const id = withDict.instance_id;
    delete withDict.instance_id;
    delete withDict.metadata.instance_id;
    withDict.responses_create_params.metadata = { instance_dict: JSON.stringify({ instance_id: id, workspace_path: '/app' }) };
    const withConfig = structuredClone(b);
    const id2 = withConfig.instance_id;
    delete withConfig.instance_id;
    delete withConfig.metadata.instance_id;
    withConfig.instance_config = { instance_id: id2 };
    const file = writeJsonl('rollouts.jsonl', [withDict, withConfig]);
    const f = await loadFile(file);
    assert.deepEqual(f.rollouts.map((r) => r.task.id), [id, id2]);
    assert.deepEqual(fastSummaries(file).map((s) => s.taskId), [id, id2]);

    // The multi-reward rows record no task id at all: `_ng_task_index` stands in, marked derived.
    const multi = await loadFile(sample(NEMO_MULTI));
    const raw = sampleJsonl(NEMO_MULTI);
    assert.deepEqual(multi.rollouts.map((r) => r.task.id), raw.map((r: any) => String(r._ng_task_index)));
    for (const r of multi.rollouts) assert.ok(r.derived?.includes('task.id'), `${r.id}: ${JSON.stringify(r.derived)}`);
  });
});

describe('fidelity: derived values are listed in Rollout.derived', () => {
  it('NeMo-Gym resolved from a reward of 1 / 0 (no eval report) is derived; from the eval report it is recorded', async () => {
    const [row] = sampleJsonl(NEMO_SWE);
    const noReport = structuredClone(row);
    delete noReport.metadata.eval_report;
    noReport.reward = 1;
    const f = await loadFile(writeJsonl('r.jsonl', [noReport, row]));
    assert.deepEqual([f.rollouts[0].outcome.resolved, f.rollouts[0].derived], [true, ['outcome.resolved']]);
    assert.equal(f.rollouts[1].derived, undefined);
  });

  it('mini-swe-agent: a task id from the <instance_id>.traj.json file name is derived; the root instance_id is not', async () => {
    const dir = tmpDir('ti-fidelity-mini-');
    const named = path.join(dir, 'django__django-11099.traj.json');
    fs.copyFileSync(sample(MINI), named);
    const r = (await loadFile(named)).rollouts[0];
    assert.equal(sampleJson(MINI).instance_id, undefined, 'the sample has no root instance_id');
    assert.deepEqual([r.task.id, r.derived], ['django__django-11099', ['task.id']]);
    const withId = { ...sampleJson(MINI), instance_id: 'django__django-11099' };
    fs.writeFileSync(named, JSON.stringify(withId));
    assert.equal((await loadFile(named)).rollouts[0].derived, undefined);
  });
});

describe('fidelity: copied-context steps are not new steps', () => {
  it('the summarization trajectory: 3 steps copied, 2 counted, in summaries, ranking and the scorer\'s input', async () => {
    const raw = sampleJson(SUMMARY);
    const copied = raw.steps.filter((s: any) => s.is_copied_context === true).length;
    assert.equal(copied, 3);
    const r = (await loadFile(sample(SUMMARY))).rollouts[0];
    assert.deepEqual(r.steps.map((s) => s.copiedContext === true), raw.steps.map((s: any) => s.is_copied_context === true));
    assert.equal(countedSteps(r), raw.steps.length - copied);
    assert.equal(summarize(r, 0).steps, raw.steps.length - copied);
    // The scorer is asked for the new steps only, at their own indexes.
    assert.deepEqual(toScoreRollout(r).steps.map((s) => s.index), [3, 4]);
    assert.equal(summarizeGroup(null, [{ rollout: r, index: 0 }]).members[0].steps, 2);
  });
});

describe('fidelity: "skipped" counts only files no format reads', () => {
  it('a candidate that cannot be read is a failure; one that is not JSON, or no rollout, is skipped', async () => {
    const dir = tmpDir('ti-fidelity-skip-');
    fs.copyFileSync(sample(MINI), path.join(dir, 'run.traj.json'));
    fs.writeFileSync(path.join(dir, 'notes.json'), '{"not": "a rollout"}');
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"cut": ');
    fs.writeFileSync(path.join(dir, 'locked.jsonl'), '{}\n');
    // A file the process may not read (the tests may run as root, so the refusal is simulated).
    const files = {
      ...nodeFiles,
      async readBytes(p: string) {
        if (path.basename(p) === 'locked.jsonl') throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return nodeFiles.readBytes(p);
      },
    };
    const res = await loadPath(dir, files);
    assert.deepEqual(res.skipped.map((p) => path.basename(p)).sort(), ['broken.json', 'notes.json']);
    assert.deepEqual(res.failures.map((f) => path.basename(f.path)), ['locked.jsonl']);
    assert.match(res.failures[0].error.message, /permission denied \(EACCES\)/);
    assert.deepEqual(res.files.map((f) => path.basename(f.path)), ['run.traj.json']);
  });
});

describe('fidelity: older layouts that load', () => {
  it('mini-swe-agent\'s bare message list (.traj.json before trajectory_format): the same steps, commands and exit codes as the full file', async () => {
    const full = (await loadFile(sample(MINI))).rollouts[0];
    // The shape of SWE-agent/mini-swe-agent tests/test_data/local.traj.json: `messages` alone, {role, content} each.
    // (the sample's text parts joined into the plain text content those older files have).
    const text = (c: any) => (typeof c === 'string' ? c : c.map((p: any) => p.text ?? '').join(''));
    const messages = sampleJson(MINI).messages.map((m: any) => ({ role: m.role, content: text(m.content) }));
    const dir = tmpDir('ti-fidelity-bare-');
    const file = path.join(dir, 'sympy__sympy-13031.traj.json');
    fs.writeFileSync(file, JSON.stringify(messages, null, 2));
    const f = await loadFile(file);
    assert.equal(f.format, 'mini-swe-agent');
    const r = f.rollouts[0];
    assert.equal(r.metadata.layout, 'bare message list (before trajectory_format)');
    assert.deepEqual([r.task.id, r.derived], ['sympy__sympy-13031', ['task.id']]);
    assert.deepEqual(r.steps.map((s) => s.role), full.steps.map((s) => s.role));
    assert.deepEqual(r.steps.map((s) => s.actions.map((a) => [a.kind, a.command])), full.steps.map((s) => s.actions.map((a) => [a.kind, a.command])));
    assert.deepEqual(r.steps.map((s) => s.observations.map((o) => o.exitCode)), full.steps.map((s) => s.observations.map((o) => o.exitCode)));
    // Show in Source: each step's range is its message in the list.
    const fileText = fs.readFileSync(file, 'utf8');
    const last = r.steps[r.steps.length - 1];
    assert.ok(last.range);
    assert.equal((JSON.parse(fileText.slice(last.range.start, last.range.end)) as any).role, 'assistant');
    // Without the .traj.json name, mini-swe-agent's markers (```bash answered by <returncode>) still identify it.
    const plain = path.join(dir, 'messages.json');
    fs.writeFileSync(plain, JSON.stringify(messages));
    assert.equal((await loadFile(plain)).format, 'mini-swe-agent');
  });

  it('an OpenHands resolver output.jsonl row (the older flat V0 events): commands, exit codes, issue id, success', async () => {
    // The shape of All-Hands-AI/OpenHands tests/unit/resolver/mock_output/output.jsonl, its history
    // the real V0 events of samples/openhands/ written the older flat way (arguments and extras
    // at the event's top level, no ids or causes).
    const events = sampleJson(OH_EVENTS) as any[];
    const flat = events.map((e) => {
      const { id, timestamp, source, cause, args, extras, tool_call_metadata, ...rest } = e;
      return { ...rest, ...(args ?? {}), ...(extras ?? {}) };
    });
    const row = {
      issue: { owner: 'neubig', repo: 'pr-viewer', number: 5, title: 'Add MIT license', body: 'We can license this repo under the MIT license.' },
      issue_type: 'issue',
      instruction: 'Please fix the following issue for the repository in /workspace.',
      base_commit: '',
      git_patch: 'diff --git a/LICENSE b/LICENSE\nnew file mode 100644\n',
      history: flat,
      metrics: { accumulated_cost: 0.070713, costs: [0.015396, 0.019719] },
      success: true,
      comment_success: null,
      result_explanation: 'The AI agent has successfully added the MIT License to the repository.',
      error: null,
    };
    const dir = path.join(tmpDir('ti-fidelity-resolver-'), 'output');
    fs.mkdirSync(dir);
    const file = writeJsonlIn(dir, 'output.jsonl', [row]);
    const f = await loadFile(file);
    assert.equal(f.format, 'openhands-eval');
    const r = f.rollouts[0];
    assert.deepEqual([r.id, r.task.id, r.outcome.resolved, r.outcome.status], ['neubig/pr-viewer#5', 'neubig/pr-viewer#5', true, null]);
    assert.equal(r.metadata.resultExplanation, row.result_explanation);
    // The same commands and exit codes as the current-shape events read by the V0 loader.
    const v0 = (await loadFile(sample(OH_EVENTS))).rollouts[0];
    const cmds = (x: typeof r) => x.steps.flatMap((s) => s.actions.filter((a) => a.kind === 'shell').map((a) => a.command));
    const exits = (x: typeof r) => x.steps.flatMap((s) => s.observations.map((o) => o.exitCode));
    assert.ok(cmds(v0).length > 0, 'the sample runs commands');
    assert.deepEqual(cmds(r), cmds(v0));
    assert.deepEqual(exits(r), exits(v0));
  });
});

function writeJsonlIn(dir: string, name: string, rows: unknown[]): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
}
