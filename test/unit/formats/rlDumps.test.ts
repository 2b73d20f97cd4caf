/**
 * RL dump loaders (NeMo-Gym Responses rollouts, Harbor traces export, OpenAI chat / verl / SkyRL
 * dumps, rLLM episodes) on the real samples in ../shared/samples/openai-responses and
 * ../shared/samples/openai-chat. Expected values are read out of the sample files by the tests.
 *
 * Generated inputs (documented at each test): no public verl / SkyRL / rLLM dump and no plain
 * Chat Completions rollout with `role:"tool"` is known (formats.md §5.5), so those rows are built
 * here from the real samples, following the writers' field names: the chat rows are the real
 * AgentProcessBench rows without their labels and the real NeMo-Gym mini-swe-agent rollout
 * converted item by item to Chat Completions messages; the verl / SkyRL rows take their prompt,
 * response and score from the real NeMo-Gym rows; the rLLM episode follows `Episode.to_dict()`
 * (`rllm-org/rllm` `rllm/agents/agent.py`) and `EpisodeLogger.log_episode`
 * (`rllm/utils/episode_logger.py`) with the real rollout's turns as its steps. A dump with many
 * GRPO groups is generated from the real NeMo-Gym rows by repeating each with several
 * `_ng_rollout_index` values.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { harborTracesLoader } from '../../../src/core/formats/harborTraces';
import { openAiChatLoader } from '../../../src/core/formats/openAiChat';
import { openAiResponsesLoader } from '../../../src/core/formats/openAiResponses';
import { pickLoader } from '../../../src/core/formats/registry';
import { splitThink } from '../../../src/core/formats/rlConversation';
import { rllmEpisodeLoader } from '../../../src/core/formats/rllmEpisode';
import { exitCodeOf } from '../../../src/core/formats/textToolCalls';
import type { FormatLoader } from '../../../src/core/formats/types';
import { terminusReplyActions } from '../../../src/core/formats/util';
import { loadFile, makeInput } from '../../../src/core/load';
import { Rollout } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { acceptedBy, loadError, rangeValue, sample, sampleJson, sampleJsonl, sampleText, tmpFile } from '../samples';

const SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';
const MULTI = 'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl';
const TRACES = 'openai-chat/harbor-golden_terminus2_invalid-json.traces.json';
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

const MINE: FormatLoader[] = [openAiChatLoader, openAiResponsesLoader, harborTracesLoader, rllmEpisodeLoader];

/** Text of a Responses message item. */
function itemText(item: any): string {
  return typeof item.content === 'string' ? item.content : item.content.map((p: any) => p.text ?? '').join('');
}

const agents = (r: Rollout) => r.steps.filter((s) => s.role === 'agent');
const actions = (r: Rollout) => r.steps.flatMap((s) => s.actions);
const observations = (r: Rollout) => r.steps.flatMap((s) => s.observations);

// ---------------------------------------------------------------------------------------------

describe('formats/rlDumps NeMo-Gym Responses rollouts', () => {
  it('reads the mini-swe-agent-2 rollouts: one agent step per turn, bash commands, <returncode> exit codes, rewards', async () => {
    const rows = sampleJsonl(SWE);
    const text = sampleText(SWE);
    const loaded = await loadFile(sample(SWE));
    assert.equal(loaded.format, 'openai-responses');
    assert.equal(loaded.issues, undefined);
    assert.equal(loaded.rollouts.length, rows.length);
    let sawNonZero = false;
    loaded.rollouts.forEach((r, i) => {
      const row = rows[i];
      const out: any[] = row.response.output;
      assert.equal(r.source.line, i + 1);
      assert.equal(r.id, `${row.instance_id}#rollout-${row._ng_rollout_index}`);
      assert.equal(r.task.id, row.instance_id);
      assert.equal(r.groupId, `ng-task-${row._ng_task_index}`);
      assert.equal(r.metadata.ngRolloutIndex, row._ng_rollout_index);
      assert.equal(r.agent.name, row.agent_ref.name);
      assert.equal(r.agent.model, row.response.model);
      assert.equal(r.outcome.reward, row.reward);
      assert.equal(r.outcome.resolved, row.metadata.eval_report[row.instance_id].resolved);
      assert.equal(r.outcome.status, row.response.status);
      // The prompt: system + user input messages.
      const input: any[] = row.responses_create_params.input;
      assert.deepEqual(r.steps.slice(0, input.length).map((s) => s.role), input.map((m) => (m.role === 'user' ? 'user' : 'system')));
      assert.equal(r.task.instruction, input.find((m) => m.role === 'user').content);
      // Each turn of this agent is one assistant message followed by its calls: agent steps = messages.
      assert.equal(agents(r).length, out.filter((o) => o.type === 'message').length);
      // Every function_call is an action with its command, every output an observation on that call.
      const calls = out.filter((o) => o.type === 'function_call');
      const outputs = out.filter((o) => o.type === 'function_call_output');
      assert.deepEqual(
        actions(r).map((a) => [a.kind, a.tool, a.command, a.callId]),
        calls.map((c) => ['shell', 'bash', JSON.parse(c.arguments).command, c.call_id]),
      );
      assert.equal(observations(r).length, outputs.length);
      for (const o of outputs) {
        const owner = r.steps.find((s) => s.actions.some((a) => a.callId === o.call_id))!;
        const obs = owner.observations.find((x) => x.callId === o.call_id)!;
        assert.equal(obs.output, o.output);
        const code = Number(/<returncode>(-?\d+)<\/returncode>/.exec(o.output)![1]);
        assert.equal(obs.exitCode, code);
        if (code !== 0) sawNonZero = true;
      }
      // Steps point at their item in the file.
      for (const s of agents(r)) {
        const v = rangeValue(text, s) as any;
        assert.ok(v.type === 'message' || v.type === 'function_call' || v.type === 'reasoning');
      }
    });
    assert.ok(sawNonZero, 'the sample has failing commands');
    // A specific failing command from the django rollout: exit code 123.
    const django = rows.findIndex((r) => r.instance_id === 'django__django-10973');
    const failing = rows[django].response.output.find((o: any) => o.type === 'function_call_output' && o.output.startsWith('<returncode>123<'));
    const call = rows[django].response.output.find((o: any) => o.type === 'function_call' && o.call_id === failing.call_id);
    const step = loaded.rollouts[django].steps.find((s) => s.actions.some((a) => a.callId === call.call_id))!;
    assert.equal(step.actions.find((a) => a.callId === call.call_id)!.command, JSON.parse(call.arguments).command);
    assert.equal(step.observations.find((o) => o.callId === call.call_id)!.exitCode, 123);
  });

  it('splits the <think> reasoning off the assistant messages (an unclosed <think> is all reasoning)', async () => {
    const rows = sampleJsonl(SWE);
    const loaded = await loadFile(sample(SWE));
    let unclosed = 0;
    loaded.rollouts.forEach((r, i) => {
      const msgs = rows[i].response.output.filter((o: any) => o.type === 'message').map(itemText);
      agents(r).forEach((s, k) => {
        const t: string = msgs[k];
        const open = t.indexOf('<think>');
        const close = t.indexOf('</think>');
        assert.ok(open >= 0);
        if (close < 0) {
          unclosed++;
          assert.equal(s.message, '');
          assert.equal(s.reasoning, t.slice(open + '<think>'.length).trim());
        } else {
          assert.equal(s.reasoning, t.slice(open + '<think>'.length, close).trim());
          assert.equal(s.message, t.slice(close + '</think>'.length).trim());
        }
      });
    });
    assert.equal(unclosed, 3, 'the sphinx rollout has three replies cut inside <think>');
  });

  it('reads the multi-reward rollouts: developer prompt, reasoning items, get_weather call and output, reward components', async () => {
    const rows = sampleJsonl(MULTI);
    const loaded = await loadFile(sample(MULTI));
    assert.equal(loaded.rollouts.length, rows.length);
    loaded.rollouts.forEach((r, i) => {
      const row = rows[i];
      const out: any[] = row.response.output;
      assert.equal(r.id, `task-${row._ng_task_index}#rollout-${row._ng_rollout_index}`);
      assert.equal(r.task.id, String(row._ng_task_index));
      assert.equal(r.steps[0].role, 'system');
      assert.equal(r.steps[0].message, row.responses_create_params.input[0].content);
      assert.equal(row.responses_create_params.input[0].role, 'developer');
      assert.equal(r.outcome.reward, row.reward);
      assert.deepEqual(r.outcome.rewards, { reward: row.reward, ...row.reward_components });
      assert.equal(r.outcome.resolved, null, 'a sum of components is no pass/fail');
      const call = out.find((o) => o.type === 'function_call');
      const output = out.find((o) => o.type === 'function_call_output');
      const [a] = actions(r);
      assert.deepEqual([a.kind, a.tool, a.callId], ['tool', call.name, call.call_id]);
      assert.deepEqual(a.arguments, JSON.parse(call.arguments));
      const [o] = observations(r);
      assert.deepEqual([o.callId, o.output, o.exitCode], [call.call_id, output.output, null]);
      // The final answer follows the tool output: a second agent step.
      const final = out.filter((x) => x.type === 'message').map(itemText)[0];
      assert.equal(agents(r).length, 2);
      assert.equal(agents(r)[1].message, final, 'text kept as recorded');
      assert.deepEqual(r.metadata.fields, { correctness: row.correctness, schema_valid: row.schema_valid, format: row.format });
    });
  });

  it('groups a dump with several rollouts per task (generated: each real row repeated with _ng_rollout_index 0..2)', async () => {
    const swe = sampleJsonl(SWE);
    const multi = sampleJsonl(MULTI);
    const lines: string[] = [];
    for (const row of [...swe, ...multi.slice(0, 2)]) {
      for (let k = 0; k < 3; k++) lines.push(JSON.stringify({ ...row, _ng_rollout_index: k }));
    }
    const f = tmpFile('rollouts.jsonl', lines.join('\n') + '\n');
    const loaded = await loadFile(f);
    assert.equal(loaded.rollouts.length, lines.length);
    const groups = new Map<string, Rollout[]>();
    for (const r of loaded.rollouts) groups.set(r.groupId!, [...(groups.get(r.groupId!) ?? []), r]);
    // swe task indices 0..4 and multireward task indices 1 and 0 collide on ng-task-0 / ng-task-1.
    const expected = new Map<string, [number, number][]>();
    for (const row of [...swe, ...multi.slice(0, 2)]) {
      const g = `ng-task-${row._ng_task_index}`;
      expected.set(g, [...(expected.get(g) ?? []), ...[0, 1, 2].map((k) => [row.reward, k] as [number, number])]);
    }
    assert.deepEqual([...groups.keys()].sort(), [...expected.keys()].sort());
    assert.equal(groups.size, 5);
    for (const [g, rs] of groups) {
      assert.deepEqual(rs.map((r) => [r.outcome.reward, r.metadata.ngRolloutIndex]), expected.get(g), g);
    }
    // ng-task-1 holds the pylint rollouts (reward 0) and the multi-reward task 1 rollouts (reward 2).
    assert.deepEqual(groups.get('ng-task-1')!.map((r) => r.outcome.reward), [0, 0, 0, 2, 2, 2]);
    assert.equal(new Set(loaded.rollouts.map((r) => r.id)).size, lines.length, 'ids are unique');
    const sk = loaded.rollouts.filter((r) => r.task.id === 'scikit-learn__scikit-learn-14141');
    assert.deepEqual(sk.map((r) => r.id), [0, 1, 2].map((k) => `scikit-learn__scikit-learn-14141#rollout-${k}`));
    assert.deepEqual(sk.map((r) => r.outcome.reward), [1, 1, 1]);
  });

  it('loads the good rows and names the bad ones: a cut row and a wrong type in the middle', async () => {
    const rows = sampleJsonl(MULTI);
    const bad = structuredClone(rows[2]);
    bad.response.output[1].call_id = 5; // function_call of row 3
    const lines = [JSON.stringify(rows[0]), JSON.stringify(rows[1]).slice(0, 300), JSON.stringify(bad), JSON.stringify(rows[3])];
    const text = lines.join('\n') + '\n';
    const f = tmpFile('bad.jsonl', text);
    const input = makeInput(f, text, nodeFiles);
    assert.equal(pickLoader(input).id, 'openai-responses');
    const rollouts = await openAiResponsesLoader.load(input);
    assert.deepEqual(rollouts.map((r) => r.source.line), [1, 4]);
    assert.deepEqual(input.issues!.map((i) => i.line), [2, 3]);
    assert.equal(input.issues![1].pointer, '/response/output/1/call_id');
    assert.equal(input.issues![1].found, 'number 5');
    assert.equal(input.issues![1].column, lines[2].indexOf('"call_id":5') + '"call_id":'.length + 1);
    assert.equal((rollouts[0].metadata.warnings as string[]).length, 2);
    const loaded = await loadFile(f);
    assert.deepEqual(loaded.issues!.map((i) => i.line), [2, 3]);
  });

  it('fails with every row located when no row is valid', async () => {
    const rows = sampleJsonl(MULTI);
    const a = structuredClone(rows[0]);
    a.reward = 'high';
    const b = structuredClone(rows[1]);
    b.response.output = {};
    const e = await loadError(tmpFile('all-bad.jsonl', [JSON.stringify(a), JSON.stringify(b)].join('\n')));
    assert.equal(e.format, 'NeMo-Gym Responses rollouts');
    assert.deepEqual(e.issues.map((i) => [i.line, i.pointer]), [[1, '/reward'], [2, '/response/output']]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('formats/rlDumps Harbor traces export', () => {
  it('merges the episodes of the golden trial into one rollout: parse-error turn, keystrokes, task_complete', async () => {
    const recs = sampleJson<any[]>(TRACES);
    const loaded = await loadFile(sample(TRACES));
    assert.equal(loaded.format, 'harbor-traces');
    assert.equal(loaded.rollouts.length, 1);
    const r = loaded.rollouts[0];
    const last = recs[recs.length - 1];
    // Each record extends the previous one: the last holds the whole conversation.
    for (let i = 1; i < recs.length; i++) assert.deepEqual(recs[i].conversations.slice(0, recs[i - 1].conversations.length), recs[i - 1].conversations);
    assert.equal(r.metadata.records, recs.length);
    assert.deepEqual(r.metadata.episodes, recs.map((x) => x.episode));
    assert.equal(r.metadata.segments, undefined);
    assert.equal(r.id, last.trial_name);
    assert.equal(r.task.id, last.task);
    assert.deepEqual(r.agent, { name: last.agent, version: null, model: last.model });
    assert.equal(r.metadata.modelProvider, last.model_provider);
    assert.equal(r.outcome.reward, null);
    assert.equal(r.outcome.status, null);
    const conv: any[] = last.conversations;
    const assistants = conv.filter((m) => m.role === 'assistant');
    assert.deepEqual(r.steps.map((s) => s.role), ['user', ...assistants.map(() => 'agent')]);
    assert.equal(r.steps[0].message, conv[0].content);
    // Agent step k is the training target of episode k.
    assert.deepEqual(agents(r).map((s) => s.sourceId), recs.map((x) => x.episode));
    agents(r).forEach((s, k) => {
      const content: string = assistants[k].content;
      const m = /^<think>([\s\S]*?)<\/think>\n?([\s\S]*)$/.exec(content)!;
      assert.equal(s.reasoning, m[1].trim());
      assert.equal(s.message, m[2].trim());
      // The user message after the assistant message is its observation (none after the last).
      const next = conv[conv.indexOf(assistants[k]) + 1];
      assert.deepEqual(s.observations.map((o) => o.output), next ? [next.content] : []);
    });
    // Episode 0: text around the JSON is a parse error → no actions; Harbor answered with the error.
    assert.deepEqual(agents(r)[0].actions, []);
    assert.match(agents(r)[0].observations[0].output, /^Previous response had parsing errors/);
    // Episode 1: the corrected reply's keystrokes.
    const reply1 = JSON.parse(assistants[1].content.replace(/^<think>[\s\S]*?<\/think>\n/, ''));
    assert.deepEqual(agents(r)[1].actions.map((a) => [a.kind, a.command]), reply1.commands.map((c: any) => ['keystrokes', c.keystrokes]));
    assert.equal(agents(r)[1].actions[0].command, "printf 'Hello, world!\\n' > hello.txt\n");
    // Episodes 2 and 3: no commands, task_complete true → finish.
    assert.deepEqual(agents(r).slice(2).map((s) => s.actions.map((a) => a.kind)), [['finish'], ['finish']]);
    // Steps point into the last record.
    const text = sampleText(TRACES);
    assert.deepEqual(rangeValue(text, agents(r)[3]), assistants[3]);
  });

  it('keeps trials apart, reads result as reward or exception name, and starts a new segment on a non-cumulative record', async () => {
    const recs = sampleJson<any[]>(TRACES);
    const solved = recs.map((x) => ({ ...x, trial_name: 'hello-world__A', result: '1.0' }));
    const failed = recs.map((x) => ({ ...x, trial_name: 'hello-world__B', result: 'AgentTimeoutError' }));
    // Trial C: episodes 0–1, then the conversation restarts (episodes 2–3 repeat 0–1), as after a handoff.
    const restarted = [0, 1, 0, 1].map((k, i) => ({ ...recs[k], trial_name: 'hello-world__C', episode: `episode-${i}` }));
    const f = tmpFile('traces.json', JSON.stringify([...solved, ...failed, ...restarted], null, 2));
    const loaded = await loadFile(f);
    assert.deepEqual(loaded.rollouts.map((r) => r.id), ['hello-world__A', 'hello-world__B', 'hello-world__C']);
    const [a, b, c] = loaded.rollouts;
    assert.deepEqual([a.outcome.reward, a.outcome.resolved, a.outcome.status], [1, true, null]);
    assert.deepEqual([b.outcome.reward, b.outcome.resolved, b.outcome.status], [null, null, 'AgentTimeoutError']);
    assert.equal(a.steps.length, 1 + recs[recs.length - 1].conversations.filter((m: any) => m.role === 'assistant').length);
    const seg = recs[1].conversations;
    const perSegment = 1 + seg.filter((m: any) => m.role === 'assistant').length;
    assert.equal(c.steps.length, 2 * perSegment);
    assert.deepEqual(c.metadata.segments, [
      { firstStep: 0, episodes: ['episode-0', 'episode-1'] },
      { firstStep: perSegment, episodes: ['episode-2', 'episode-3'] },
    ]);
    assert.equal(c.steps[perSegment].role, 'user', 'the restarted conversation begins with its prompt, not an observation');
    assert.equal(c.steps[perSegment - 1].observations.length, 0);
  });

  it('loads the good records and names the bad one', async () => {
    const recs = sampleJson<any[]>(TRACES);
    const broken = structuredClone(recs);
    broken[2].conversations[1].role = 7;
    const text = JSON.stringify(broken, null, 2);
    const f = tmpFile('traces.json', text);
    const loaded = await loadFile(f);
    assert.equal(loaded.rollouts.length, 1);
    assert.equal(loaded.rollouts[0].metadata.records, 3);
    assert.equal(loaded.issues!.length, 1);
    assert.equal(loaded.issues![0].pointer, '/2/conversations/1/role');
    assert.equal(loaded.issues![0].found, 'number 7');
    assert.equal(loaded.issues![0].line, text.slice(0, text.indexOf('"role": 7')).split('\n').length);
  });

  it('shares the Terminus reply parser with the ATIF raw-content mode (util.terminusReplyActions)', () => {
    const recs = sampleJson<any[]>(TRACES);
    const conv: any[] = recs[recs.length - 1].conversations;
    const bodies = conv.filter((m) => m.role === 'assistant').map((m) => splitThink(m.content).text);
    assert.equal(terminusReplyActions(bodies[0]), null, 'text before the JSON');
    assert.deepEqual(terminusReplyActions(bodies[3])!.map((a) => a.kind), ['finish']);
  });
});

// ---------------------------------------------------------------------------------------------

/** The real NeMo-Gym mini-swe-agent rollout as Chat Completions messages (function_call → tool_calls). */
function sweAsChat(row: any): any[] {
  const messages: any[] = row.responses_create_params.input.map((m: any) => ({ role: m.role, content: m.content }));
  for (const o of row.response.output) {
    if (o.type === 'message') messages.push({ role: 'assistant', content: itemText(o), tool_calls: [] });
    else if (o.type === 'function_call') messages[messages.length - 1].tool_calls.push({ id: o.call_id, type: 'function', function: { name: o.name, arguments: o.arguments } });
    else if (o.type === 'function_call_output') messages.push({ role: 'tool', tool_call_id: o.call_id, content: o.output });
  }
  return messages;
}

describe('formats/rlDumps OpenAI chat dumps', () => {
  it('reads the real rollout as Chat Completions rows: shell commands, tool_call_id links, exit codes, reward (generated from the NeMo-Gym sample)', async () => {
    const rows = sampleJsonl(SWE);
    const chatRows = rows.map((row) => ({ messages: sweAsChat(row), reward: row.reward, uid: `task-${row._ng_task_index}`, instance_id: row.instance_id, model: row.response.model }));
    const text = chatRows.map((x) => JSON.stringify(x)).join('\n') + '\n';
    const f = tmpFile('chat.jsonl', text);
    const loaded = await loadFile(f);
    assert.equal(loaded.format, 'openai-chat');
    loaded.rollouts.forEach((r, i) => {
      const row = rows[i];
      const msgs = chatRows[i].messages;
      assert.equal(r.id, `${f}:${i + 1}`);
      assert.equal(r.groupId, `task-${row._ng_task_index}`);
      assert.equal(r.metadata.groupRule, 'explicit');
      assert.equal(r.task.id, row.instance_id);
      assert.equal(r.agent.model, row.response.model);
      assert.equal(r.outcome.reward, row.reward);
      assert.equal(r.outcome.resolved, row.reward === 1);
      assert.equal(agents(r).length, msgs.filter((m) => m.role === 'assistant').length);
      // sourceId = message index; the step's range is that message.
      for (const s of r.steps) assert.deepEqual(rangeValue(text, s), msgs[s.sourceId as number]);
      const calls = row.response.output.filter((o: any) => o.type === 'function_call');
      assert.deepEqual(actions(r).map((a) => [a.kind, a.command, a.callId]), calls.map((c: any) => ['shell', JSON.parse(c.arguments).command, c.call_id]));
      for (const o of row.response.output.filter((x: any) => x.type === 'function_call_output')) {
        const obs = observations(r).find((x) => x.callId === o.call_id)!;
        assert.equal(obs.exitCode, Number(/<returncode>(-?\d+)</.exec(o.output)![1]));
      }
    });
  });

  it('reads AgentProcessBench rows without their labels: tool links by id, prompt-hash groups', async () => {
    const rows = sampleJsonl(APB);
    assert.deepEqual(acceptedBy(MINE, sample(APB), sampleText(APB)), [], 'rows with step_labels are not ours');
    const stripped = rows.map(({ step_labels: _s, final_label: _f, ...rest }) => rest);
    const f = tmpFile('apb-unlabelled.jsonl', stripped.map((x) => JSON.stringify(x)).join('\n'));
    const loaded = await loadFile(f);
    assert.equal(loaded.format, 'openai-chat');
    loaded.rollouts.forEach((r, i) => {
      const msgs: any[] = rows[i].messages;
      assert.deepEqual(agents(r).map((s) => s.sourceId), msgs.flatMap((m, k) => (m.role === 'assistant' ? [k] : [])));
      const calls = msgs.flatMap((m) => m.tool_calls ?? []);
      assert.deepEqual(actions(r).map((a) => [a.tool, a.callId, a.arguments]), calls.map((c: any) => [c.function.name, c.id, JSON.parse(c.function.arguments)]));
      // The tool messages carry no tool_call_id: each answers the oldest open call of the step before.
      const tools = msgs.filter((m) => m.role === 'tool');
      assert.deepEqual(observations(r).map((o) => [o.callId, o.output]), tools.map((m) => [m.tool_call_id, m.content]));
      assert.equal(r.metadata.groupRule, 'prompt-hash');
    });
    // Rows 3 and 4 are two samples of the same query (same query_index): same prompt → same group.
    assert.equal(rows[2].query_index, rows[3].query_index);
    assert.equal(loaded.rollouts[2].groupId, loaded.rollouts[3].groupId);
    assert.equal(new Set(loaded.rollouts.map((r) => r.groupId)).size, new Set(rows.map((x) => x.query_index)).size);
  });

  it('links tool messages without tool_call_id to the open calls in order (generated: the APB rows with the ids removed)', async () => {
    const rows = sampleJsonl(APB).map(({ step_labels: _s, final_label: _f, ...rest }) => rest);
    for (const row of rows) for (const m of row.messages) if (m.role === 'tool') delete m.tool_call_id;
    const loaded = await loadFile(tmpFile('no-ids.jsonl', rows.map((x) => JSON.stringify(x)).join('\n')));
    loaded.rollouts.forEach((r, i) => {
      const msgs: any[] = rows[i].messages;
      // Each tool message answers the call of the assistant message right before it.
      const expected = msgs.flatMap((m, k) => (m.role === 'tool' ? [[msgs[k - 1].tool_calls[0].id, m.content]] : []));
      assert.deepEqual(observations(r).map((o) => [o.callId, o.output]), expected);
      assert.ok(r.steps.every((s) => s.role !== 'environment'));
    });
  });

  it('reads verl and SkyRL flattened dumps as prompt + response steps (generated from the NeMo-Gym rows)', async () => {
    const rows = sampleJsonl(SWE);
    const firstReply = (row: any) => itemText(row.response.output.find((o: any) => o.type === 'message'));
    const prompt = (row: any) => row.responses_create_params.input.find((m: any) => m.role === 'user').content;
    // verl `_dump_generations`: {input, output, gts, score, step}; two rows per prompt like a GRPO batch.
    const verl = rows.flatMap((row) => [0, 1].map(() => ({ input: prompt(row), output: firstReply(row), gts: row.instance_id, score: row.reward, step: 7 })));
    const v = await loadFile(tmpFile('7.jsonl', verl.map((x) => JSON.stringify(x)).join('\n')));
    assert.equal(v.format, 'openai-chat');
    v.rollouts.forEach((r, i) => {
      const row = rows[Math.floor(i / 2)];
      assert.deepEqual(r.steps.map((s) => [s.role, s.sourceId]), [['user', 'input'], ['agent', 'output']]);
      assert.equal(r.steps[0].message, prompt(row));
      const t = firstReply(row);
      assert.equal(r.steps[1].reasoning, t.slice('<think>'.length, t.indexOf('</think>')).trim());
      assert.equal(r.outcome.reward, row.reward);
      assert.equal(r.outcome.source, 'score');
      assert.equal(r.metadata.step, 7);
      assert.equal(r.metadata.groundTruth, row.instance_id);
    });
    assert.equal(v.rollouts[0].groupId, v.rollouts[1].groupId, 'same prompt, same group');
    assert.notEqual(v.rollouts[1].groupId, v.rollouts[2].groupId);
    // SkyRL `dump_per_dataset_eval_results`: {input_prompt, output_response, score, stop_reason, env_class, env_extras, data_source}.
    const skyrl = rows.map((row) => ({ input_prompt: prompt(row), output_response: firstReply(row), score: row.reward, stop_reason: 'stop', env_class: 'swe', env_extras: {}, data_source: 'swe-bench' }));
    const s = await loadFile(tmpFile('swe-bench.jsonl', skyrl.map((x) => JSON.stringify(x)).join('\n')));
    assert.deepEqual(s.rollouts.map((r) => [r.outcome.reward, r.outcome.status, r.metadata.dataSource, r.metadata.env_class]), rows.map((row) => [row.reward, 'stop', 'swe-bench', 'swe']));
    assert.deepEqual(s.rollouts[0].steps.map((x) => x.sourceId), ['input_prompt', 'output_response']);
  });

  it('reads a JSON array of rows and a single row; ids from "id", else <path>:<line>', async () => {
    const row = sampleJsonl(APB)[4];
    delete row.step_labels;
    const arr = JSON.stringify([{ ...row, id: 'r-1' }, row], null, 2);
    const f = tmpFile('rows.json', arr);
    const loaded = await loadFile(f);
    assert.equal(loaded.format, 'openai-chat');
    const line2 = arr.slice(0, arr.indexOf('{', arr.indexOf('"r-1"'))).split('\n').length;
    assert.deepEqual(loaded.rollouts.map((r) => [r.id, r.source.line]), [['r-1', 2], [`${f}:${line2}`, line2]]);
    assert.deepEqual(JSON.parse(arr.slice(loaded.rollouts[1].source.range!.start, loaded.rollouts[1].source.range!.end)), row);
    const one = await loadFile(tmpFile('row.json', JSON.stringify(row, null, 2)));
    assert.equal(one.format, 'openai-chat');
    assert.equal(one.rollouts[0].source.line, null);
    assert.equal(one.rollouts[0].steps.length, row.messages.length);
  });

  it('locates a malformed row in the middle and loads the others', async () => {
    const rows = sampleJsonl(APB).map(({ step_labels: _s, ...rest }) => rest);
    rows[2].messages[2].tool_calls[0].function.name = ['search'];
    const text = rows.map((x) => JSON.stringify(x)).join('\n');
    const f = tmpFile('chat.jsonl', text);
    const input = makeInput(f, text, nodeFiles);
    const rollouts = await openAiChatLoader.load(input);
    assert.deepEqual(rollouts.map((r) => r.source.line), [1, 2, 4, 5, 6]);
    assert.equal(input.issues!.length, 1);
    const issue = input.issues![0];
    assert.deepEqual([issue.line, issue.pointer, issue.expected, issue.found], [3, '/messages/2/tool_calls/0/function/name', 'string', 'array(1)']);
    assert.match((rollouts[0].metadata.warnings as string[])[0], new RegExp(`:3:\\d+ at /messages/2/tool_calls/0/function/name: expected string`));
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * An rLLM episode built from the source definitions (`Episode.to_dict()`, `Trajectory.to_dict()`,
 * `Step.to_dict()`, `ToolCall.to_dict()` in rllm-org/rllm) with the real NeMo-Gym rollout's turns as
 * its steps: step k = assistant message k (thought = its <think> block, model_response = the rest,
 * action = its bash calls as ToolCall dicts, observation = the outputs of step k-1's calls).
 */
function rllmEpisode(row: any): any {
  const out: any[] = row.response.output;
  const turns: { msg: any; calls: any[]; outputs: any[] }[] = [];
  for (const o of out) {
    if (o.type === 'message') turns.push({ msg: o, calls: [], outputs: [] });
    else if (o.type === 'function_call') turns[turns.length - 1].calls.push(o);
    else if (o.type === 'function_call_output') turns[turns.length - 1].outputs.push(o);
  }
  const user = row.responses_create_params.input.find((m: any) => m.role === 'user').content;
  const steps = turns.map((t, k) => {
    const split = splitThink(itemText(t.msg));
    return {
      prompt_ids: [],
      response_ids: [],
      logprobs: [],
      chat_completions: [],
      observation: k === 0 ? user : turns[k - 1].outputs.map((o) => o.output).join('\n'),
      thought: split.reasoning ?? '',
      action: t.calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments), arguments_raw: c.arguments })),
      model_response: split.text,
      model_output: null,
      info: {},
      reward: 0.0,
      done: k === turns.length - 1,
      mc_return: 0.0,
      advantage: null,
      weight_version: null,
    };
  });
  return {
    id: `${row.instance_id}:0`,
    task: { instance_id: row.instance_id, problem_statement: user },
    termination_reason: 'env_done',
    is_correct: row.metadata.eval_report[row.instance_id].resolved,
    trajectories: [{ uid: 'traj-0', name: 'swe_agent', task: null, steps, reward: row.reward, info: {} }],
    metrics: {},
    info: {},
  };
}

describe('formats/rlDumps rLLM episodes (generated from the source definitions, no public episode file known)', () => {
  it('reads Episode.to_dict(): steps, tool-call actions, observations from the next step, outcome, task group', async () => {
    const row = sampleJsonl(SWE)[0];
    const ep = rllmEpisode(row);
    const f = tmpFile('episode.json', JSON.stringify(ep, null, 2));
    const loaded = await loadFile(f);
    assert.equal(loaded.format, 'rllm-episode');
    const r = loaded.rollouts[0];
    assert.equal(r.id, ep.id);
    assert.equal(r.groupId, row.instance_id);
    assert.equal(r.task.id, row.instance_id);
    assert.deepEqual([r.outcome.reward, r.outcome.resolved, r.outcome.status], [row.reward, true, 'env_done']);
    assert.equal(r.agent.name, 'swe_agent');
    const steps = ep.trajectories[0].steps;
    assert.deepEqual(r.steps.map((s) => s.role), ['user', ...steps.map(() => 'agent')]);
    assert.equal(r.steps[0].message, steps[0].observation);
    agents(r).forEach((s, k) => {
      assert.equal(s.sourceId, `swe_agent/${k}`);
      assert.equal(s.message, steps[k].model_response);
      assert.equal(s.reasoning, steps[k].thought || null);
      assert.deepEqual(s.actions.map((a) => [a.kind, a.command]), steps[k].action.map((a: any) => ['shell', a.arguments.command]));
      // The next step's observation is this step's output.
      assert.deepEqual(s.observations.map((o) => o.output), k + 1 < steps.length ? [steps[k + 1].observation] : []);
    });
    const calls = row.response.output.filter((o: any) => o.type === 'function_call');
    assert.deepEqual(actions(r).map((a) => a.command), calls.map((c: any) => JSON.parse(c.arguments).command));
    assert.deepEqual((r.metadata.stepRewards as any[]).map((x) => x.done), steps.map((x: any) => x.done));
  });

  it('reads an EpisodeLogger file (episode_id, training_step) with two trajectories and keys rewards by name', async () => {
    const rows = sampleJsonl(SWE);
    const ep = rllmEpisode(rows[1]);
    const judge = { ...rllmEpisode(rows[0]).trajectories[0], name: 'judge', reward: 0.5 };
    const logged = {
      training_step: 12,
      epoch: 0,
      episode_id: ep.id,
      task: ep.task,
      task_hash: 'deadbeef',
      is_correct: ep.is_correct,
      termination_reason: 'max_turns_exceeded',
      metrics: {},
      trajectories: [ep.trajectories[0], judge].map((t: any) => ({ name: t.name, uid: t.uid, reward: t.reward, num_steps: t.steps.length, steps: t.steps })),
    };
    const loaded = await loadFile(tmpFile('episode_hashdeadbeef_id.json', JSON.stringify(logged, null, 2)));
    const r = loaded.rollouts[0];
    assert.equal(r.id, ep.id);
    assert.equal(r.metadata.trainingStep, 12);
    assert.deepEqual(r.outcome.rewards, { swe_agent: rows[1].reward, judge: 0.5 });
    assert.equal(r.outcome.reward, null, 'two different trajectory rewards');
    assert.equal(r.outcome.resolved, rows[1].metadata.eval_report[rows[1].instance_id].resolved);
    assert.equal(agents(r).length, ep.trajectories[0].steps.length + judge.steps.length);
    assert.equal(agents(r)[ep.trajectories[0].steps.length].sourceId, 'judge/0');
  });

  it('reads trajectories keyed by name and episodes one per JSONL line', async () => {
    const rows = sampleJsonl(SWE);
    const eps = rows.slice(0, 3).map((row) => {
      const ep = rllmEpisode(row);
      return { ...ep, trajectories: { solver: { ...ep.trajectories[0], name: undefined } } };
    });
    const loaded = await loadFile(tmpFile('episodes.jsonl', eps.map((e) => JSON.stringify(e)).join('\n')));
    assert.equal(loaded.format, 'rllm-episode');
    assert.deepEqual(loaded.rollouts.map((r) => [r.id, r.source.line, r.groupId]), rows.slice(0, 3).map((row, i) => [`${row.instance_id}:0`, i + 1, row.instance_id]));
    assert.deepEqual(agents(loaded.rollouts[0]).map((s) => s.sourceId), eps[0].trajectories.solver.steps.map((_: unknown, k: number) => `solver/${k}`));
  });

  it('locates a step field of the wrong type', async () => {
    const ep = rllmEpisode(sampleJsonl(SWE)[0]);
    ep.trajectories[0].steps[2].reward = 'one';
    const text = JSON.stringify(ep, null, 2);
    const e = await loadError(tmpFile('episode.json', text));
    assert.equal(e.format, 'rLLM episode');
    assert.equal(e.issues[0].pointer, '/trajectories/0/steps/2/reward');
    assert.equal(e.issues[0].line, text.slice(0, text.indexOf('"reward": "one"')).split('\n').length);
  });
});

// ---------------------------------------------------------------------------------------------

describe('formats/rlDumps detection and exit codes', () => {
  it('takes its own samples and leaves every other sample alone', () => {
    const mine: Record<string, string> = { [SWE]: 'openai-responses', [MULTI]: 'openai-responses', [TRACES]: 'harbor-traces' };
    const root = sample('.');
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${d}/${e.name}`) : [`${d}/${e.name}`]));
    let checked = 0;
    for (const file of walk(root).filter((p) => /\.(json|jsonl|traj)$/.test(p))) {
      const rel = file.slice(root.length + 1);
      let got: string[];
      try {
        got = acceptedBy(MINE, file, fs.readFileSync(file, 'utf8'));
      } catch {
        continue; // not JSON (syntax errors are other tests' business)
      }
      assert.deepEqual(got, mine[rel] ? [mine[rel]] : [], rel);
      checked++;
    }
    assert.ok(checked >= 15);
  });

  it('reads exit codes from <returncode>, a JSON exit_code, and an "Exit code: N" first/last line only', () => {
    const rc = sampleJsonl(SWE)[2].response.output.find((o: any) => o.type === 'function_call_output' && o.output.startsWith('<returncode>2<'));
    assert.equal(exitCodeOf(rc.output), 2);
    // The JSON output shape formats.md §5.5 documents for the NeMo-Gym terminal agents.
    assert.equal(exitCodeOf(JSON.stringify({ output: 'ls: cannot access', exit_code: 2 })), 2);
    assert.equal(exitCodeOf(JSON.stringify({ city: 'San Francisco' })), null);
    assert.equal(exitCodeOf('total 0\nExit code: 1'), 1);
    assert.equal(exitCodeOf('grep output\nExit code: 1\nmore output'), null);
  });
});
