/**
 * core/branch: the chat-completions client against a scripted fake server on 127.0.0.1 (a reply,
 * a tool call, HTTP 500, a hang past a short timeout, a body that is not JSON, JSON that is not a
 * chat completion, nothing listening), the reply parser, the observation template, the finish
 * marker, the history rebuilt from the real mini-swe-agent sample, and URL redaction.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletion, completionsUrl, ModelCallError, parseChatResponse, redactUrl } from '../../../src/core/branch/client';
import { forkIndexOf } from '../../../src/core/branch/loop';
import { finishedWith, historyFrom, observationText, parseReply, shellToolFor } from '../../../src/core/branch/protocol';
import { loadFile } from '../../../src/core/load';
import { makeStep, unknownOutcome, type Rollout } from '../../../src/core/model';
import { sample } from '../samples';
import { bashReply, startFakeModel, type FakeModel } from './fakeModel';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

async function rejection(p: Promise<unknown>): Promise<ModelCallError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ModelCallError, String(e));
    return e;
  }
  assert.fail('expected the call to fail');
}

describe('branch: chat-completions client', function () {
  this.timeout(30_000);
  let fake: FakeModel | null = null;
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });

  it('sends model, messages and the bearer key; reads content, usage and tool calls', async () => {
    fake = await startFakeModel([{ text: bashReply('ls'), usage: { prompt_tokens: 7, completion_tokens: 3, cost: 0.5 } }, { toolCall: { name: 'bash', arguments: '{"command":"pwd"}', id: 'c1' } }]);
    const ep = { url: fake.url, model: 'm1', apiKey: 'sk-test', temperature: 0 };
    const r = await chatCompletion(ep, [{ role: 'user', content: 'hi' }]);
    assert.equal(r.content, bashReply('ls'));
    assert.deepEqual(r.usage, { prompt: 7, completion: 3, cached: null, costUsd: 0.5 });
    assert.equal(r.model, 'fake-model');
    assert.deepEqual(fake.requests[0], { model: 'm1', messages: [{ role: 'user', content: 'hi' }], stream: false, temperature: 0 });
    assert.equal(fake.auth[0], 'Bearer sk-test');
    const t = await chatCompletion({ url: fake.url, model: 'm1' }, [{ role: 'user', content: 'hi' }], [{ type: 'function' }]);
    assert.deepEqual(t.toolCalls, [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } }]);
    assert.equal(t.content, '');
    assert.equal(fake.auth[1], undefined);
    assert.deepEqual(fake.requests[1].tools, [{ type: 'function' }]);
  });

  it('HTTP 500: kind http, the status and the body in the message, never the key', async () => {
    fake = await startFakeModel([{ status: 500, body: '{"error":"boom"}' }]);
    const e = await rejection(chatCompletion({ url: fake.url, model: 'm', apiKey: 'sk-secret' }, []));
    assert.equal(e.kind, 'http');
    assert.equal(e.status, 500);
    assert.match(e.message, /answered HTTP 500.*boom/);
    assert.doesNotMatch(e.message, /sk-secret/);
  });

  it('a server that never answers: kind timeout after the timeout, no hang', async () => {
    fake = await startFakeModel([{ hang: true }]);
    const e = await rejection(chatCompletion({ url: fake.url, model: 'm', timeoutMs: 300 }, []));
    assert.equal(e.kind, 'timeout');
    assert.match(e.message, /did not answer within 0.3 s/);
  });

  it('the caller stops a hanging call: kind aborted', async () => {
    fake = await startFakeModel([{ hang: true }]);
    const ac = new AbortController();
    const p = chatCompletion({ url: fake.url, model: 'm', timeoutMs: 60_000 }, [], [], ac.signal);
    setTimeout(() => ac.abort(), 50);
    assert.equal((await rejection(p)).kind, 'aborted');
  });

  it('garbage: a body that is not JSON, JSON that is not a completion, an error object, a tool call without a name', async () => {
    fake = await startFakeModel([{ raw: '<html>oops' }, { raw: '{"choices": []}' }, { raw: '{"error": {"message": "model not found"}}' }, { raw: '{"choices":[{"message":{"tool_calls":[{"function":{}}]}}]}' }]);
    const ep = { url: fake.url, model: 'm' };
    const a = await rejection(chatCompletion(ep, []));
    assert.equal(a.kind, 'bad-response');
    assert.match(a.message, /not JSON: "<html>oops"/);
    assert.match((await rejection(chatCompletion(ep, []))).message, /without choices\[0\]\.message/);
    assert.match((await rejection(chatCompletion(ep, []))).message, /answered an error: model not found/);
    assert.match((await rejection(chatCompletion(ep, []))).message, /tool call 1 of the reply has no function name/);
  });

  it('nothing listening: kind network', async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const e = await rejection(chatCompletion({ url: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 5000 }, []));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /could not be reached: ECONNREFUSED/);
  });

  it('URLs: /chat/completions appended once; user, password and key parameters redacted', () => {
    assert.equal(completionsUrl('http://h:1/v1/'), 'http://h:1/v1/chat/completions');
    assert.equal(completionsUrl('http://h:1/v1/chat/completions'), 'http://h:1/v1/chat/completions');
    assert.equal(redactUrl('https://u:p@h/v1?api-key=abc&api-version=2024'), 'https://h/v1?api-key=REDACTED&api-version=2024');
    assert.equal(redactUrl('not a url'), '(not a URL)');
    assert.equal(parseChatResponse('{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}').content, 'ab');
  });
});

describe('branch: reply parser and protocol (mini-swe-agent)', () => {
  const reply = (content: string, toolCalls: any[] = []) => ({ content, toolCalls });

  it('one bash block is the action; zero or two are none, with the count', () => {
    assert.deepEqual(parseReply(reply(bashReply('echo hi\nls'))), { kind: 'command', command: 'echo hi\nls', callId: null, tool: null });
    assert.deepEqual(parseReply(reply('```mswea_bash_command\npwd\n```')), { kind: 'command', command: 'pwd', callId: null, tool: null });
    assert.deepEqual(parseReply(reply('I am done.')), { kind: 'none', reason: 'the reply holds 0 bash code blocks, not exactly one' });
    assert.deepEqual(parseReply(reply(bashReply('a') + '\n' + bashReply('b'))), { kind: 'none', reason: 'the reply holds 2 bash code blocks, not exactly one' });
    assert.equal(parseReply(reply('```python\nprint(1)\n```')).kind, 'none');
  });

  it('a tool call wins over text; its command (or cmd) argument is the action', () => {
    const call = (args: string) => [{ id: 'c9', type: 'function', function: { name: 'bash', arguments: args } }];
    assert.deepEqual(parseReply(reply(bashReply('ignored'), call('{"command":"ls -l"}'))), { kind: 'command', command: 'ls -l', callId: 'c9', tool: 'bash' });
    assert.deepEqual(parseReply(reply('', call('{"cmd":"pwd"}'))), { kind: 'command', command: 'pwd', callId: 'c9', tool: 'bash' });
    assert.deepEqual(parseReply(reply('', call('{oops'))), { kind: 'none', reason: 'the tool call bash has arguments that are not JSON' });
    assert.deepEqual(parseReply(reply('', call('{"path":"x"}'))), { kind: 'none', reason: 'the tool call bash has no command argument' });
  });

  it('observation template: returncode + output; timeout; head and tail past 10 000 characters', () => {
    assert.equal(observationText('ls', { output: 'a\n', exitCode: 0, timedOut: false }), '<returncode>0</returncode>\n<output>\na\n</output>');
    assert.match(observationText('sleep 9', { output: '', exitCode: null, timedOut: true }), /^The last command <command>sleep 9<\/command> timed out/);
    const long = observationText('x', { output: 'h'.repeat(6000) + 't'.repeat(6000), exitCode: 1, timedOut: false });
    assert.match(long, /^<returncode>1<\/returncode>\n<warning>/);
    assert.match(long, /<elided_chars>\n2000 characters elided/);
  });

  it('finish: output starting with the marker line; the rest is the submission', () => {
    assert.equal(finishedWith('COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n'), '');
    assert.equal(finishedWith('\nMINI_SWE_AGENT_FINAL_OUTPUT\ndiff --git a b\n'), 'diff --git a b\n');
    assert.equal(finishedWith('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n'), null);
  });

  it('history of the real sample: system, task, each reply and its observation as the model saw it', async () => {
    const r = (await loadFile(sample(MINI))).rollouts[0];
    assert.equal(forkIndexOf(r, 2), 2); // step 2 is the task message: the fork moves on to step 3
    assert.equal(forkIndexOf(r, 4), 3);
    assert.throws(() => forkIndexOf(r, 99), /step 99 is not in the rollout \(steps 1–5\)/);
    const h = historyFrom(r, 4);
    assert.deepEqual(h.map((m) => m.role), ['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    assert.match(h[0].content!, /^You are a helpful assistant/);
    assert.match(h[1].content!, /^Please solve this issue: Create a file called hello.txt/);
    assert.match(h[2].content!, /```bash\necho "Hello, world!" > hello.txt\n```/);
    // The recorded messages, re-rendered from the parsed observations.
    assert.equal(h[3].content, '<returncode>0</returncode>\n<output>\n</output>');
    assert.equal(h[5].content, '<returncode>0</returncode>\n<output>\nHello, world!\n</output>');
  });
  it('tool-call history: one tool message per call (by id, a missing one noted), the rollout\'s shell tool offered', () => {
    const r: Rollout = {
      id: 'r', format: 'openai-chat', schemaVersion: null, source: { path: '/x.json', range: null, line: null }, task: { id: null, instruction: null },
      agent: { name: null, version: null, model: null }, environment: { image: null, workdir: null }, outcome: unknownOutcome(), groupId: null, metadata: {},
      steps: [
        makeStep(0, 'user', { message: 'do it' }),
        makeStep(1, 'agent', {
          message: 'two calls',
          actions: [
            { kind: 'shell', command: 'ls', tool: 'run_shell', arguments: { command: 'ls' }, callId: 'c1' },
            { kind: 'shell', command: 'pwd', tool: 'run_shell', arguments: { command: 'pwd' }, callId: 'c2' },
          ],
          observations: [{ callId: 'c1', output: 'a b', exitCode: 0, truncated: false }],
        }),
      ],
    };
    assert.deepEqual(historyFrom(r, 2), [
      { role: 'user', content: 'do it' },
      {
        role: 'assistant',
        content: 'two calls',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'run_shell', arguments: '{"command":"ls"}' } },
          { id: 'c2', type: 'function', function: { name: 'run_shell', arguments: '{"command":"pwd"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a b' }, // not mini-swe-agent: as recorded
      { role: 'tool', tool_call_id: 'c2', content: '(no output was recorded)' },
    ]);
    assert.equal(shellToolFor(r)?.function.name, 'run_shell');
    assert.equal(shellToolFor({ ...r, steps: [r.steps[0]] }), null);
  });
});
