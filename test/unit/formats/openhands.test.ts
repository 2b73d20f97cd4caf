/**
 * OpenHands loaders on real files: the shared V0 samples (`../shared/samples/openhands/`), a real
 * persisted V1 conversation (`test/fixtures/openhands/v1-conversation-cd945624/`, copied from
 * OpenHands/software-agent-sdk, see test/fixtures/PROVENANCE.tsv), and evaluation `output.jsonl`
 * files that the tests generate from those real event lists (no public output.jsonl small enough
 * to vendor was found). Bad inputs are derived from the same files. Expected values are read out of
 * the files themselves wherever possible.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError, UnknownFormatError } from '../../../src/core/errors';
import { openHandsEvalLoader } from '../../../src/core/formats/openhandsEval';
import { openHandsV0Loader } from '../../../src/core/formats/openhandsV0';
import { openHandsV1Loader } from '../../../src/core/formats/openhandsV1';
import { loadFile, loadPath, makeInput } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { rangeValue, REPO_ROOT, sample, sampleJson, tmpDir } from '../samples';

const HARBOR = 'openhands/harbor-rfc_openhands_trajectory.json';
const BASIC = 'openhands/tests_runtime_trajs_basic.json';
const V1_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'openhands', 'v1-conversation-cd945624');
const V1_EVENTS_DIR = path.join(V1_DIR, 'events');


function write(dir: string, name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

/** The V1 fixture's event files in index order, parsed. */
function v1Events(): { name: string; value: any }[] {
  return fs
    .readdirSync(V1_EVENTS_DIR)
    .filter((n) => /^event-\d+/.test(n))
    .sort()
    .map((name) => ({ name, value: JSON.parse(fs.readFileSync(path.join(V1_EVENTS_DIR, name), 'utf8')) }));
}

function v1BaseState(): any {
  return JSON.parse(fs.readFileSync(path.join(V1_DIR, 'base_state.json'), 'utf8'));
}

/** 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string, from = 0): number {
  const at = text.indexOf(needle, from);
  assert.ok(at >= 0, `${needle} occurs in the text`);
  return text.slice(0, at).split('\n').length;
}

async function loadOne(file: string): Promise<Rollout> {
  const r = await loadFile(file);
  assert.equal(r.rollouts.length, 1);
  return r.rollouts[0];
}

describe('formats/openhands V0 event lists', () => {
  it('reads the Harbor RFC run: one step per action, the run paired with its observation by cause', async () => {
    const events = sampleJson<any[]>(HARBOR);
    const text = fs.readFileSync(sample(HARBOR), 'utf8');
    const loaded = await loadFile(sample(HARBOR));
    assert.equal(loaded.format, 'openhands-v0');
    const r = loaded.rollouts[0];
    const actions = events.filter((e) => 'action' in e);
    // Every observation in this file answers an action, so steps = action events.
    assert.equal(r.steps.length, actions.length);
    assert.deepEqual(r.steps.map((s) => s.sourceId), actions.map((e) => e.id));
    assert.deepEqual(r.steps.map((s) => s.role), ['system', 'user', 'system', 'agent', 'agent']);
    assert.equal(r.metadata.eventCount, events.length);

    const runEvent = events.find((e) => e.action === 'run');
    const runObs = events.find((e) => e.observation === 'run');
    assert.equal(runObs.cause, runEvent.id);
    const run = r.steps.find((s) => s.sourceId === runEvent.id)!;
    assert.equal(run.actions.length, 1);
    assert.equal(run.actions[0].kind, 'shell');
    assert.equal(run.actions[0].command, runEvent.args.command);
    assert.equal(run.actions[0].tool, 'execute_bash');
    assert.equal(run.actions[0].callId, runEvent.tool_call_metadata.tool_call_id);
    assert.equal(run.observations.length, 1);
    assert.equal(run.observations[0].output, runObs.content);
    assert.equal(runObs.extras.metadata.exit_code, 0);
    assert.equal(run.observations[0].exitCode, 0);
    assert.equal(run.observations[0].truncated, false);
    assert.equal(run.timestamp, runEvent.timestamp);
    assert.equal(run.durationSec, (Date.parse(runObs.timestamp) - Date.parse(runEvent.timestamp)) / 1000);
    const usage = runEvent.tool_call_metadata.model_response.usage;
    assert.deepEqual(run.tokens, { prompt: usage.prompt_tokens, completion: usage.completion_tokens, cached: usage.prompt_tokens_details.cached_tokens });
    assert.equal(run.costUsd, runEvent.llm_metrics.accumulated_cost);
    assert.deepEqual(rangeValue(text, run), runEvent);

    const finishEvent = events.find((e) => e.action === 'finish');
    const finish = r.steps[r.steps.length - 1];
    assert.equal(finish.actions[0].kind, 'finish');
    assert.equal(finish.message, finishEvent.args.final_thought);
    assert.equal(finish.observations.length, 0);
    // Per-step cost is the increase of the accumulated cost, not the accumulated value.
    const expectedDelta = finishEvent.llm_metrics.accumulated_cost - runEvent.llm_metrics.accumulated_cost;
    assert.ok(Math.abs(finish.costUsd! - expectedDelta) < 1e-12, `finish cost ${finish.costUsd} ≈ ${expectedDelta}`);
    assert.equal(finish.tokens!.cached, finishEvent.tool_call_metadata.model_response.usage.prompt_tokens_details.cached_tokens);
    assert.equal(r.metadata.totalCostUsd, finishEvent.llm_metrics.accumulated_cost);

    assert.equal(r.steps[0].message, events[0].args.content);
    assert.equal(r.steps[1].message, events[1].args.content);
    assert.equal(r.task.instruction, events[1].args.content);
    assert.equal(r.agent.model, runEvent.tool_call_metadata.model_response.model);
    assert.equal(r.agent.version, events[0].args.openhands_version);
    assert.equal(r.metadata.agentClass, events[0].args.agent_class);
    assert.equal(r.environment.workdir, runObs.extras.metadata.working_dir);
    assert.equal(r.id, `${sample(HARBOR)}#0`);
    // The recall observation (cause 2) belongs to the recall step.
    const recall = r.steps.find((s) => s.sourceId === 2)!;
    assert.equal(recall.observations[0].output, events.find((e) => e.observation === 'recall').content);
  });

  it('reads the runtime replay fixture: file edit with path, reasoning from thought, finish message', async () => {
    const events = sampleJson<any[]>(BASIC);
    const r = await loadOne(sample(BASIC));
    assert.equal(r.steps.length, events.filter((e) => 'action' in e).length);
    assert.equal(r.steps[0].role, 'user');
    assert.equal(r.task.instruction, events[0].args.content);
    const editEvent = events.find((e) => e.action === 'edit');
    const edit = r.steps[1];
    assert.equal(edit.actions[0].kind, 'file_edit');
    assert.equal(edit.actions[0].path, editEvent.args.path);
    assert.equal(edit.actions[0].tool, editEvent.tool_call_metadata.function_name);
    assert.equal(edit.reasoning, editEvent.args.thought);
    assert.equal(edit.observations[0].output, events.find((e) => e.observation === 'edit').content);
    assert.equal(edit.observations[0].exitCode, null);
    // Anthropic usage: cached tokens read from prompt_tokens_details.
    assert.equal(edit.tokens!.prompt, editEvent.tool_call_metadata.model_response.usage.prompt_tokens);
    const finishEvent = events.find((e) => e.action === 'finish');
    assert.equal(r.steps[2].actions[0].kind, 'finish');
    assert.equal(r.steps[2].message, finishEvent.args.thought);
    assert.equal(r.steps[2].reasoning, null);
    assert.equal(r.agent.model, 'claude-3-5-sonnet-20241022');
  });

  it('reads the UI download wrapper {"trajectory": [...]} with ranges inside the wrapper', async () => {
    const events = sampleJson<any[]>(HARBOR);
    const text = JSON.stringify({ trajectory: events }, null, 2);
    const f = write(tmpDir(), 'download.json', text);
    const r = await loadOne(f);
    assert.equal(r.format, 'openhands-v0');
    assert.equal(r.steps.length, events.filter((e) => 'action' in e).length);
    for (const s of r.steps) assert.deepEqual(rangeValue(text, s), events.find((e) => e.id === s.sourceId));
    assert.equal(r.metadata.wrapper, 'trajectory');
  });

  it('reports a truncated file as a syntax error at the end of input', async () => {
    const text = fs.readFileSync(sample(BASIC), 'utf8');
    // Cut after the second event's closing brace: the list never closes.
    const end = text.indexOf('\n  },', text.indexOf('"id": 3')) + '\n  },'.length;
    const cut = text.slice(0, end);
    const f = write(tmpDir(), 'cut.json', cut);
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, null);
      assert.equal(e.issues[0].line, cut.split('\n').length);
      assert.match(e.issues[0].expected, /valid JSON/);
      assert.equal(e.issues[0].found, 'the end of the file (the file may be cut off)');
      return true;
    });
  });

  it('locates a number in "source" by pointer and line', async () => {
    const events = sampleJson<any[]>(HARBOR);
    events[3].source = 42;
    const text = JSON.stringify(events, null, 2);
    const f = write(tmpDir(), 'bad-source.json', text);
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, 'OpenHands V0 event list');
      assert.equal(e.issues.length, 1);
      assert.equal(e.issues[0].pointer, '/3/source');
      assert.equal(e.issues[0].line, lineOf(text, '"source": 42'));
      assert.equal(e.issues[0].found, 'number 42');
      assert.match(e.issues[0].expected, /"agent" \| "user" \| "environment"/);
      return true;
    });
    // Same inside the download wrapper.
    const wrapped = JSON.stringify({ trajectory: events }, null, 2);
    const g = write(tmpDir(), 'bad-source-wrapped.json', wrapped);
    await assert.rejects(loadFile(g), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].pointer, '/trajectory/3/source');
      assert.equal(e.issues[0].line, lineOf(wrapped, '"source": 42'));
      return true;
    });
  });

  it('rejects an event that is neither action nor observation, naming it', async () => {
    const events = sampleJson<any[]>(BASIC);
    delete events[2].observation;
    const text = JSON.stringify(events, null, 2);
    const f = write(tmpDir(), 'no-kind.json', text);
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].pointer, '/2/action');
      assert.match(e.issues[0].expected, /"action" or "observation"/);
      assert.equal(e.issues[0].found, 'missing');
      return true;
    });
  });

  it('maps exit code -1 to null, reads legacy extras.exit_code, flags truncation markers, keeps orphan observations', async () => {
    const events = sampleJson<any[]>(HARBOR);
    const obsIdx = events.findIndex((e) => e.observation === 'run');
    const runObs = events[obsIdx];
    // (1) exit code -1: OpenHands' "unknown / still running".
    runObs.extras.metadata.exit_code = -1;
    runObs.content = runObs.content + '\n[... Observation truncated due to length ...]\n' + 'tail';
    // (2) a legacy observation (exit_code in extras, no metadata) answering nothing in the file.
    const legacy = { ...runObs, id: 99, cause: 1234, tool_call_metadata: undefined, content: 'legacy output', extras: { command: 'false', exit_code: 1 } };
    events.push(legacy);
    const f = write(tmpDir(), 'edited.json', JSON.stringify(events, null, 2));
    const r = await loadOne(f);
    const run = r.steps.find((s) => s.sourceId === runObs.cause)!;
    assert.equal(run.observations[0].exitCode, null);
    assert.equal(run.observations[0].truncated, true);
    assert.deepEqual(r.metadata.exitCodeUnknownSteps, [run.index]);
    const orphan = r.steps[r.steps.length - 1];
    assert.equal(orphan.role, 'environment');
    assert.equal(orphan.sourceId, 99);
    assert.equal(orphan.observations[0].exitCode, 1);
    assert.equal(orphan.observations[0].output, 'legacy output');
    assert.equal(orphan.observations[0].truncated, false);
  });

  it('skips agent-state and null bookkeeping events, keeping the states in metadata and the last as status', async () => {
    // Shapes as in OpenHands tests/runtime/trajs/basic_gui_mode.json (GUI sessions record them).
    const events = sampleJson<any[]>(HARBOR);
    const ts = events[1].timestamp;
    const bookkeeping = [
      { id: 100, timestamp: ts, source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'running' } },
      { id: 101, timestamp: ts, source: 'environment', message: 'Agent state changed to init', action: 'change_agent_state', args: { agent_state: 'init', thought: '' } },
      { id: 102, timestamp: ts, source: 'environment', message: 'No observation', cause: 101, observation: 'null', content: '', extras: {} },
    ];
    events.splice(2, 0, ...bookkeeping);
    events.push({ id: 103, timestamp: events[events.length - 1].timestamp, source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'finished' } });
    const r = await loadOne(write(tmpDir(), 'gui.json', JSON.stringify(events, null, 2)));
    const plain = await loadOne(sample(HARBOR));
    assert.deepEqual(r.steps.map((s) => s.sourceId), plain.steps.map((s) => s.sourceId));
    assert.deepEqual(r.metadata.skippedEvents, { agent_state_changed: 2, change_agent_state: 1, 'null observation': 1 });
    assert.deepEqual((r.metadata.agentStates as any[]).map((a) => a.state), ['running', 'init', 'finished']);
    assert.equal(r.outcome.status, 'finished');
    assert.equal(plain.outcome.status, null);
  });

  it('maps a run action sent as input to a running process (is_input) to keystrokes', async () => {
    const events = sampleJson<any[]>(HARBOR);
    const run = events.find((e) => e.action === 'run');
    run.args.is_input = true;
    run.args.command = 'C-c';
    const r = await loadOne(write(tmpDir(), 'input.json', JSON.stringify(events)));
    const step = r.steps.find((s) => s.sourceId === run.id)!;
    assert.equal(step.actions[0].kind, 'keystrokes');
    assert.equal(step.actions[0].command, 'C-c');
  });

  it('is chosen by content, and the other OpenHands loaders decline a V0 list', () => {
    const input = makeInput(sample(HARBOR), fs.readFileSync(sample(HARBOR), 'utf8'), nodeFiles);
    assert.deepEqual(openHandsV0Loader.detect(input), { accept: true, confidence: 0.8 });
    assert.equal(openHandsV1Loader.detect(input).accept, false);
    assert.equal(openHandsEvalLoader.detect(input).accept, false);
    const empty = makeInput('/e.json', '[]', nodeFiles);
    const d = openHandsV0Loader.detect(empty);
    assert.ok(!d.accept && /empty/.test(d.reason));
    const other = makeInput('/o.json', JSON.stringify([{ id: 1, role: 'user', content: 'hi' }]), nodeFiles);
    assert.equal(openHandsV0Loader.detect(other).accept, false);
  });
});

describe('formats/openhands evaluation output.jsonl', () => {
  /**
   * A 3-line output.jsonl built from the real event lists: the Harbor run (V0, resolved report),
   * the runtime replay fixture (V0, with an error) and the V1 fixture conversation (V1 history,
   * SDK-style metadata.llm). Field names follow EvalOutput (V0 evaluation/utils/shared.py, V1
   * OpenHands/benchmarks benchmarks/utils/models.py).
   */
  function rows(): any[] {
    return [
      {
        instance_id: 'harbor__hello-world-1',
        instruction: 'Create a file called hello.txt',
        instance: { repo: 'example/hello' },
        metadata: { agent_class: 'CodeActAgent', llm_config: { model: 'openai/gpt-5', api_key: '**********' }, max_iterations: 30, dataset: 'harbor-rfc' },
        history: sampleJson<any[]>(HARBOR),
        metrics: { accumulated_cost: 0.01934775 },
        error: null,
        test_result: { git_patch: 'diff --git a/hello.txt b/hello.txt\n', report: { resolved: true } },
      },
      {
        instance_id: 'runtime__basic-2048',
        instruction: null,
        metadata: { agent_class: 'CodeActAgent', llm_config: { model: 'anthropic/claude-3-5-sonnet-20241022' } },
        history: sampleJson<any[]>(BASIC),
        metrics: null,
        error: 'Agent got stuck in a loop',
        test_result: { git_patch: '' },
      },
      {
        instance_id: 'sdk__pwd-1',
        attempt: 1,
        instruction: 'Use the terminal tool',
        metadata: { llm: { model: v1BaseState().agent.llm.model } },
        history: v1Events().map((e) => e.value),
        metrics: v1BaseState().stats.usage_to_metrics.agent,
        error: null,
        test_result: {},
      },
    ];
  }

  it('reads one rollout per line with line numbers, line ranges and step ranges inside the line', async () => {
    const rs = rows();
    const text = rs.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const f = write(tmpDir(), 'output.jsonl', text);
    const loaded = await loadFile(f);
    assert.equal(loaded.format, 'openhands-eval');
    assert.equal(loaded.rollouts.length, 3);
    const lines = text.split('\n');
    loaded.rollouts.forEach((r, i) => {
      assert.equal(r.id, rs[i].instance_id);
      assert.equal(r.task.id, rs[i].instance_id);
      assert.equal(r.source.line, i + 1);
      assert.equal(text.slice(r.source.range!.start, r.source.range!.end), lines[i]);
      for (const s of r.steps) {
        assert.ok(s.range!.start >= r.source.range!.start && s.range!.end <= r.source.range!.end, `step ${s.index} inside line ${i + 1}`);
        assert.deepEqual(rangeValue(text, s), rs[i].history.find((e: any) => e.id === s.sourceId));
      }
    });
    const [a, b, c] = loaded.rollouts;
    assert.equal(a.agent.model, 'openai/gpt-5');
    assert.equal(a.task.instruction, rs[0].instruction);
    assert.equal(a.outcome.resolved, true);
    assert.equal(a.outcome.status, null);
    assert.equal(a.metadata.historyFormat, 'v0');
    assert.equal(a.steps.find((s) => s.actions[0]?.kind === 'shell')!.observations[0].exitCode, 0);
    assert.equal(b.outcome.resolved, null);
    assert.equal(b.outcome.status, 'Agent got stuck in a loop');
    assert.equal(b.task.instruction, rs[1].history[0].args.content, 'instruction falls back to the first user message');
    assert.equal(c.metadata.historyFormat, 'v1');
    assert.equal(c.agent.model, v1BaseState().agent.llm.model);
    const shell = c.steps.find((s) => s.actions[0]?.kind === 'shell')!;
    assert.equal(shell.actions[0].command, rs[2].history.find((e: any) => e.kind === 'ActionEvent').action.command);
    // Tokens per response from the row's metrics.token_usages.
    const usage = rs[2].metrics.token_usages[0];
    assert.deepEqual(shell.tokens, { prompt: usage.prompt_tokens, completion: usage.completion_tokens, cached: usage.cache_read_tokens });
  });

  it('loads the good lines and names each bad line (syntax error, wrong type in history)', async () => {
    const rs = rows();
    rs[1].history[2].source = 7; // history event 2 of the second row
    const good0 = JSON.stringify(rs[0]);
    const broken = JSON.stringify(rs[2]).slice(0, 200); // cut in the middle
    const text = [good0, broken, JSON.stringify(rs[1]), JSON.stringify(rs[2])].join('\n') + '\n';
    const f = write(tmpDir(), 'output.jsonl', text);
    const loaded = await loadFile(f);
    assert.deepEqual(loaded.rollouts.map((r) => r.source.line), [1, 4]);
    const warnings = loaded.rollouts[0].metadata.warnings as string[];
    assert.equal(warnings.length, 2);
    assert.match(warnings[0], new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+( at \\S+)?: expected valid JSON`));
    assert.match(warnings[1], /:3:\d+ at \/history\/2\/source: expected one of "agent" \| "user" \| "environment", found number 7/);
    assert.deepEqual(loaded.rollouts[1].metadata.warnings, warnings);
  });

  it('fails with every line located when no line is valid', async () => {
    const rs = rows();
    rs[0].history[3].source = 1;
    const text = [JSON.stringify(rs[0]), '{"instance_id": "x", "history": [}'].join('\n') + '\n';
    const f = write(tmpDir(), 'output.jsonl', text);
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, 'OpenHands evaluation output.jsonl');
      assert.deepEqual(e.issues.map((i) => i.line), [1, 2]);
      assert.equal(e.issues[0].pointer, '/history/3/source');
      assert.equal(e.issues[1].pointer, '/history/0'); // the array element being read at the stray '}'
      return true;
    });
  });

  it('keeps ids unique when an instance appears on several lines', async () => {
    const r0 = rows()[0];
    const text = [JSON.stringify(r0), JSON.stringify(r0)].join('\n');
    const f = write(tmpDir(), 'output.jsonl', text);
    const loaded = await loadFile(f);
    assert.deepEqual(loaded.rollouts.map((r) => r.id), [r0.instance_id, `${r0.instance_id}#line2`]);
  });
});

describe('formats/openhands V1 events', () => {
  const first = () => path.join(V1_EVENTS_DIR, v1Events()[0].name);

  it('reads a persisted conversation folder through its first event file', async () => {
    const evs = v1Events().map((e) => e.value);
    const base = v1BaseState();
    const loaded = await loadFile(first());
    assert.equal(loaded.format, 'openhands-v1');
    const r = loaded.rollouts[0];
    assert.equal(r.id, base.id);
    assert.equal(r.agent.model, base.agent.llm.model);
    assert.equal(r.environment.workdir, base.workspace.working_dir);
    assert.equal(r.outcome.status, base.execution_status);
    // Observations attach to their actions: steps = events − observation events.
    const nObs = evs.filter((e) => e.kind === 'ObservationEvent').length;
    assert.equal(r.steps.length, evs.length - nObs);
    assert.deepEqual(
      r.steps.map((s) => s.role),
      evs.filter((e) => e.kind !== 'ObservationEvent').map((e) => (e.kind === 'SystemPromptEvent' ? 'system' : e.source)),
    );
    assert.equal(r.steps[0].message, evs[0].system_prompt.text);
    assert.equal(r.steps[1].message, evs[1].llm_message.content[0].text);
    assert.equal(r.task.instruction, evs[1].llm_message.content[0].text);

    const actEv = evs.find((e) => e.kind === 'ActionEvent' && e.tool_name === 'terminal');
    const obsEv = evs.find((e) => e.kind === 'ObservationEvent' && e.tool_call_id === actEv.tool_call_id);
    const shell = r.steps.find((s) => s.sourceId === actEv.id)!;
    assert.equal(shell.actions[0].kind, 'shell');
    assert.equal(shell.actions[0].command, actEv.action.command);
    assert.equal(shell.actions[0].callId, actEv.tool_call_id);
    assert.equal(shell.observations.length, 1);
    assert.equal(obsEv.observation.exit_code, 0);
    assert.equal(shell.observations[0].exitCode, 0);
    assert.equal(shell.observations[0].output, obsEv.observation.content[0].text);
    assert.equal(shell.durationSec, (Date.parse(obsEv.timestamp) - Date.parse(actEv.timestamp)) / 1000);
    // Per-response tokens and cost from base_state.json stats.
    const m = base.stats.usage_to_metrics.agent;
    const u = m.token_usages.find((t: any) => t.response_id === actEv.llm_response_id);
    assert.deepEqual(shell.tokens, { prompt: u.prompt_tokens, completion: u.completion_tokens, cached: u.cache_read_tokens });
    const ci = m.response_latencies.findIndex((l: any) => l.response_id === actEv.llm_response_id);
    assert.equal(shell.costUsd, m.costs[ci].cost);

    const finEv = evs.find((e) => e.kind === 'ActionEvent' && e.tool_name === 'finish');
    const fin = r.steps.find((s) => s.sourceId === finEv.id)!;
    assert.equal(fin.actions[0].kind, 'finish');
    assert.equal(fin.message, finEv.action.message);
    const last = r.steps[r.steps.length - 1];
    assert.equal(last.role, 'agent');
    assert.equal(last.message, evs[evs.length - 1].llm_message.content[0].text);
    assert.ok(last.tokens, 'the final agent message has the usage of its response');

    // Ranges: the whole event file; steps from other files name their file.
    for (const s of r.steps) {
      const file = s.file ?? first();
      const text = fs.readFileSync(file, 'utf8');
      assert.equal((rangeValue(text, s) as any).id, s.sourceId);
    }
    assert.equal(r.steps[0].file, undefined);
    assert.equal(path.basename(shell.file!), v1Events().find((e) => e.value.id === actEv.id)!.name);
  });

  it('reads the folder as one rollout and declines the other event files with a pointer to the first', async () => {
    const res = await loadPath(V1_DIR);
    assert.equal(res.failures.length, 0);
    assert.equal(res.files.length, 1);
    assert.equal(res.files[0].format, 'openhands-v1');
    assert.equal(path.basename(res.files[0].path), v1Events()[0].name);
    const second = path.join(V1_EVENTS_DIR, v1Events()[1].name);
    await assert.rejects(loadFile(second), (e: unknown) => {
      assert.ok(e instanceof UnknownFormatError);
      assert.match(e.message, /OpenHands V1 events: one event of a V1 conversation folder.*event-00000/);
      return true;
    });
  });

  it('reads the same events as a JSON list and as JSONL, with per-event ranges', async () => {
    const evs = v1Events().map((e) => e.value);
    const dir = tmpDir();
    const listText = JSON.stringify(evs, null, 2);
    const fromList = await loadOne(write(dir, 'events.json', listText));
    const jsonlText = evs.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const fromJsonl = await loadOne(write(dir, 'events.jsonl', jsonlText));
    const folder = await loadOne(first());
    const strip = (r: Rollout) => r.steps.map((s) => ({ ...s, range: null, file: undefined, tokens: null, costUsd: null }));
    assert.deepEqual(strip(fromList), strip(folder));
    assert.deepEqual(strip(fromJsonl), strip(folder));
    for (const s of fromList.steps) assert.equal((rangeValue(listText, s) as any).id, s.sourceId);
    for (const s of fromJsonl.steps) {
      assert.equal((rangeValue(jsonlText, s) as any).id, s.sourceId);
      assert.equal(lineOf(jsonlText, `"id":"${s.sourceId}"`), evs.findIndex((e) => e.id === s.sourceId) + 1);
    }
    assert.equal(fromList.id, `${path.join(dir, 'events.json')}#0`);
  });

  it('maps a soft-timeout exit code -1 to null with metadata, and flags clipped output', async () => {
    const evs = v1Events().map((e) => e.value);
    const obs = evs.find((e) => e.kind === 'ObservationEvent' && e.observation.kind === 'TerminalObservation');
    obs.observation.exit_code = -1;
    obs.observation.metadata.exit_code = -1;
    obs.observation.content[0].text = 'partial\n<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>';
    const r = await loadOne(write(tmpDir(), 'events.json', JSON.stringify(evs)));
    const step = r.steps.find((s) => s.actions[0]?.callId === obs.tool_call_id)!;
    assert.equal(step.observations[0].exitCode, null);
    assert.equal(step.observations[0].truncated, true);
    assert.deepEqual(r.metadata.exitCodeUnknownSteps, [step.index]);
  });

  it('attaches agent errors and rejections to their tool call (shapes from observation.py)', async () => {
    const evs = v1Events().map((e) => e.value);
    const act = evs.find((e) => e.kind === 'ActionEvent' && e.tool_name === 'terminal');
    // A second, non-executable call of the same response, answered by an AgentErrorEvent, and a
    // rejected one answered by a UserRejectObservation.
    const bad = { ...act, id: 'a-2', tool_call_id: 'call_bad', action: null, tool_call: { ...act.tool_call, id: 'call_bad', arguments: '{"command": 1' } };
    const err = { id: 'e-2', timestamp: act.timestamp, source: 'agent', tool_name: 'terminal', tool_call_id: 'call_bad', error: 'Error validating args', kind: 'AgentErrorEvent' };
    const rej = { id: 'r-1', timestamp: act.timestamp, source: 'environment', tool_name: 'terminal', tool_call_id: 'call_nobody', action_id: 'nobody', rejection_reason: 'User rejected the action', kind: 'UserRejectObservation' };
    const at = evs.indexOf(act);
    evs.splice(at + 1, 0, bad, err, rej);
    const r = await loadOne(write(tmpDir(), 'events.json', JSON.stringify(evs)));
    const badStep = r.steps.find((s) => s.sourceId === 'a-2')!;
    assert.equal(badStep.actions[0].kind, 'tool', 'no parsable command: a plain tool call');
    assert.equal(badStep.actions[0].arguments, '{"command": 1');
    assert.equal(badStep.observations[0].output, 'Error validating args');
    assert.equal(badStep.tokens, null, 'the response was counted on its first step');
    const orphan = r.steps.find((s) => s.sourceId === 'r-1')!;
    assert.equal(orphan.role, 'environment');
    assert.equal(orphan.observations[0].output, 'User rejected the action');
  });

  it('shows a SystemPromptUpdateEvent (tools changed mid-conversation) as a system step', async () => {
    // Shape as in software-agent-sdk .pr/artifacts/20260121-223755/conversations/3fdb…/events/event-00004-….json.
    const evs = v1Events().map((e) => e.value);
    const upd = { id: 'u-1', timestamp: evs[5].timestamp, source: 'agent', system_prompt: { type: 'text', text: 'Updated prompt' }, tools: evs[0].tools, reason: 'tools_changed', kind: 'SystemPromptUpdateEvent' };
    evs.splice(6, 0, upd);
    const r = await loadOne(write(tmpDir(), 'events.json', JSON.stringify(evs)));
    const s = r.steps.find((x) => x.sourceId === 'u-1')!;
    assert.equal(s.role, 'system');
    assert.equal(s.message, 'Updated prompt');
  });

  it('locates a malformed event in a list and a bad JSONL line', async () => {
    const evs = v1Events().map((e) => e.value);
    const i = evs.findIndex((e) => e.kind === 'ObservationEvent');
    delete evs[i].tool_call_id;
    const text = JSON.stringify(evs, null, 2);
    await assert.rejects(loadFile(write(tmpDir(), 'events.json', text)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, 'OpenHands V1 events');
      assert.equal(e.issues[0].pointer, `/${i}/tool_call_id`);
      assert.equal(e.issues[0].found, 'missing');
      return true;
    });
    const good = v1Events().map((e) => JSON.stringify(e.value));
    good[3] = good[3].slice(0, 50);
    assert.match(good[6], /"source":"user"/);
    good[6] = good[6].replace('"source":"user"', '"source":5');
    const jsonl = good.join('\n');
    // JSONL (a session being written may end in a cut-off line): the bad lines are located
    // warnings, the other events are read.
    const loaded = await loadFile(write(tmpDir(), 'events.jsonl', jsonl));
    assert.deepEqual(loaded.issues?.map((x) => x.line), [4, 7]);
    assert.equal(loaded.issues?.[1].pointer, '/source');
    const all = v1Events().map((e) => e.value);
    assert.deepEqual(
      loaded.rollouts[0].steps.map((s) => s.sourceId),
      (await loadOne(first())).steps.map((s) => s.sourceId).filter((id) => id !== all[3].id && id !== all[6].id),
    );
    // Not one V1 event: the file fails with every line located.
    const none = v1Events()
      .slice(1, 4)
      .map((e) => JSON.stringify({ ...e.value, source: 5 }))
      .join('\n');
    await assert.rejects(loadFile(write(tmpDir(), 'events.jsonl', none)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.deepEqual(e.issues.map((x) => [x.line, x.pointer]), [[1, '/source'], [2, '/source'], [3, '/source']]);
      return true;
    });
  });
});

describe('formats/openhands unknown event kinds (issue 19 item 5)', () => {
  /** The fixture's events with every event at `at` renamed to a kind this reader does not know. */
  function renamed(at: number[], kind = 'FrobnicateEvent'): any[] {
    const evs = v1Events().map((e) => e.value);
    for (const i of at) evs[i] = { ...evs[i], kind };
    return evs;
  }

  for (const layout of ['list', 'jsonl', 'eval'] as const) {
    it(`an unknown kind is a located warning and the event is shown raw (${layout})`, async () => {
      const evs = renamed([2]);
      const dir = tmpDir();
      const file =
        layout === 'list'
          ? write(dir, 'events.json', JSON.stringify(evs, null, 2))
          : layout === 'jsonl'
            ? write(dir, 'events.jsonl', evs.map((e) => JSON.stringify(e)).join('\n') + '\n')
            : write(dir, 'output.jsonl', JSON.stringify({ instance_id: 'x-1', instruction: 'do it', history: evs }) + '\n');
      const result = await loadPath(file);
      assert.equal(result.failures.length, 0);
      const f = result.files[0];
      const warnings = (f.issues ?? []).filter((i) => i.severity === 'warning');
      const w = warnings.find((i) => /unrecognised OpenHands event kind "FrobnicateEvent"/.test(i.found));
      assert.ok(w, `a warning names the kind: ${JSON.stringify(f.issues)}`);
      assert.equal(w!.pointer, layout === 'list' ? '/2/kind' : layout === 'eval' ? '/history/2/kind' : '/kind');
      assert.ok(w!.line !== null && w!.line >= 1);
      const r = f.rollouts[0];
      const step = r.steps.find((s) => s.sourceId === evs[2].id)!;
      assert.ok(step, 'the event has a step');
      assert.equal(step.event?.kind, 'unknown_record');
      assert.match(step.message, /FrobnicateEvent/);
      assert.ok(step.message.includes(JSON.stringify(evs[2].id)), 'the raw event is shown');
      assert.equal(r.steps.filter((s) => s.message === '' && !s.actions.length && !s.observations.length && s.role !== 'system').length, 0, 'no empty step');
    });
  }
});
