/**
 * Gemini CLI loader on the real chats of `../shared/format-census/gemini-cli/`: a JSONL log of a
 * 2026 CLI (`/init` writing GEMINI.md, then a `replace` edit, then a cancelled request; messages
 * appended again whole as their tool calls complete) and a single-JSON chat of October 2025
 * (VibeCodingTracker's `test_conversation_gemini.json`: the writer's shape, but its gemini messages
 * carry no `toolCalls`). Expected values are read out of the files by the tests' own parsing. The
 * shell tool's results, tool-result echoes and rewinds, which neither census file has, are checked
 * on lines added to the real log in the shapes the CLI writes (marked as such).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { geminiAction, geminiCliLoader, geminiTokens, shellExitCode } from '../../../src/core/formats/geminiCli';
import { pickLoader } from '../../../src/core/formats/registry';
import { JsonDoc, LineIndex, splitJsonl } from '../../../src/core/json';
import { loadFile, makeInput } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { censusFile, rangeValue, tmpFile } from '../samples';

const JSONL = 'gemini-cli/session-jsonl_gemini.jsonl';
const LEGACY = 'gemini-cli/session-legacy-json_test_conversation_gemini.json';

/** The JSONL file's records, parsed by the test. */
function records(rel: string): any[] {
  return fs
    .readFileSync(censusFile(rel), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** The messages as the CLI's reader keeps them: by id, the last version, in order of first appearance. */
function messages(recs: any[]): any[] {
  const byId = new Map<string, any>();
  for (const r of recs) if (typeof r.id === 'string') byId.set(r.id, r);
  return [...byId.values()];
}

async function loadOne(file: string): Promise<{ rollout: Rollout; issues: NonNullable<Awaited<ReturnType<typeof loadFile>>['issues']> }> {
  const r = await loadFile(file);
  assert.equal(r.format, 'gemini-cli');
  assert.equal(r.rollouts.length, 1);
  return { rollout: r.rollouts[0], issues: r.issues ?? [] };
}

function stream(file: string) {
  const text = fs.readFileSync(file, 'utf8');
  const index = new LineIndex(text);
  return {
    lines: splitJsonl(text),
    stream: geminiCliLoader.stream!({ path: file, files: nodeFiles, parseLine: (l) => JsonDoc.parse(file, l.text, l.offset, index, true) }),
  };
}

describe('formats/geminiCli — JSONL log (real, 2026)', () => {
  const recs = records(JSONL);
  const msgs = messages(recs);
  let rollout: Rollout;
  let issues: Awaited<ReturnType<typeof loadOne>>['issues'];
  before(async () => ({ rollout, issues } = await loadOne(censusFile(JSONL))));

  it('is picked by content; one step per message id (the later version of a message replaces it)', () => {
    const file = censusFile(JSONL);
    assert.equal(pickLoader(makeInput(file, fs.readFileSync(file, 'utf8'), nodeFiles)).id, 'gemini-cli');
    assert.deepEqual(issues, []);
    assert.equal(rollout.id, recs[0].sessionId);
    assert.equal(rollout.metadata.projectHash, recs[0].projectHash);
    assert.equal(rollout.metadata.kind, 'main');
    assert.equal(rollout.steps.length, msgs.length);
    assert.equal(recs.filter((r) => typeof r.id === 'string').length, 16, 'five messages were written twice');
    assert.deepEqual(
      rollout.steps.map((s) => s.sourceId),
      msgs.map((m) => m.id),
    );
    assert.deepEqual(
      rollout.steps.map((s) => s.role),
      ['system', 'user', 'agent', 'agent', 'agent', 'agent', 'user', 'agent', 'user', 'agent', 'system'],
    );
    // Each step points at the last line of its message: the one with the tool calls.
    const text = fs.readFileSync(file, 'utf8');
    const s2 = rangeValue(text, rollout.steps[2]) as any;
    assert.equal(s2.id, msgs[2].id);
    assert.equal(s2.toolCalls.length, 5);
  });

  it('reads the tool calls in order with their results; write_file and replace as edits', () => {
    const calls = msgs.flatMap((m) => m.toolCalls ?? []);
    const acts = rollout.steps.flatMap((s) => s.actions);
    assert.deepEqual(
      acts.map((a) => a.tool),
      calls.map((c) => c.name),
    );
    assert.deepEqual(
      acts.map((a) => a.tool),
      ['update_topic', 'read_file', 'read_file', 'read_file', 'read_file', 'read_file', 'read_file', 'read_file', 'write_file', 'update_topic', 'update_topic', 'replace'],
    );
    const obs = rollout.steps.flatMap((s) => s.observations);
    assert.deepEqual(
      obs.map((o) => o.output),
      calls.map((c) => c.result[0].functionResponse.response.output),
    );
    assert.ok(obs.every((o) => o.exitCode === null && !o.isError));
    const write = acts.find((a) => a.tool === 'write_file')!;
    const wc = calls.find((c) => c.name === 'write_file');
    assert.deepEqual(write.edit, { op: 'write', path: 'GEMINI.md', content: wc.args.content });
    assert.ok(write.edit.op === 'write' && write.edit.content.startsWith('# GEMINI.md - Project Context & Instructions'));
    const replace = acts.find((a) => a.tool === 'replace')!;
    const rc = calls.find((c) => c.name === 'replace');
    assert.deepEqual(replace.edit, { op: 'replace', path: 'GEMINI.md', edits: [{ oldText: rc.args.old_string, newText: rc.args.new_string, replaceAll: false }] });
    assert.equal(replace.kind, 'file_edit');
    assert.deepEqual(rollout.steps[9].actions.map((a) => a.callId), ['6kkcv00x', 'yf8jqzhz']);
  });

  it('maps tokens (prompt = input + tool, completion = output + thoughts) and thoughts to reasoning', () => {
    const m = msgs[2];
    assert.deepEqual(m.tokens, { input: 13906, output: 185, cached: 0, thoughts: 306, tool: 0, total: 14397 });
    assert.deepEqual(rollout.steps[2].tokens, { prompt: 13906, completion: 491, cached: 0 });
    for (const [i, msg] of msgs.entries()) {
      if (msg.type !== 'gemini') continue;
      assert.deepEqual(rollout.steps[i].tokens, { prompt: msg.tokens.input + msg.tokens.tool, completion: msg.tokens.output + msg.tokens.thoughts, cached: msg.tokens.cached });
    }
    assert.equal(rollout.steps[2].reasoning, `${m.thoughts[0].subject}\n${m.thoughts[0].description.trim()}`);
    assert.equal(rollout.agent.model, 'gemini-3-flash-preview');
    assert.deepEqual(rollout.metadata.models, [...new Set(msgs.filter((x) => x.model).map((x) => x.model))]);
  });

  it('shows info messages as notices and "Request cancelled." as an interruption; the /init prompt is the task', () => {
    assert.deepEqual(rollout.steps[0].event, { kind: 'notice', label: 'Info: Empty GEMINI.md created. Now analyzing the project to populate it.' });
    assert.deepEqual(rollout.steps[10].event, { kind: 'interrupted', label: 'Info: Request cancelled.' });
    assert.equal(rollout.task.instruction, msgs[1].content[0].text);
    assert.equal(rollout.steps[8].message, '幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題');
    assert.equal(rollout.environment.workdir, null, 'no session context in this log: the cwd is unknown');
    assert.equal(rollout.metadata.lastUpdated, '2026-04-23T12:58:35.591Z', 'the last $set');
  });

  it('streams: chunked feeding gives the rollout of load(); a message written again marks its step changed', async () => {
    const file = censusFile(JSONL);
    const { lines, stream: s } = stream(file);
    for (let i = 0; i < lines.length; i += 3) s.push(lines.slice(i, i + 3));
    s.end?.();
    assert.deepEqual(s.snapshot()[0].rollout, rollout);

    const { stream: t } = stream(file);
    const second = lines.findIndex((l, i) => i > 6 && l.text.includes('"id":"52e62e67'));
    t.push(lines.slice(0, second));
    const before = t.snapshot()[0];
    assert.equal(before.rollout.steps.length, 3);
    assert.deepEqual(before.rollout.steps[2].actions, []);
    t.push([lines[second]]);
    const after = t.snapshot()[0];
    assert.equal(after.changedFrom, 2);
    assert.equal(after.rollout.steps[2].actions.length, 5);
    assert.equal(after.rollout.steps[0], before.rollout.steps[0]);
    assert.equal(after.rollout.steps[1], before.rollout.steps[1]);
  });
});

describe('formats/geminiCli — single-JSON chat (October 2025)', () => {
  it('reads each message as a step with thoughts and tokens; zero counts are unknown', async () => {
    const doc = JSON.parse(fs.readFileSync(censusFile(LEGACY), 'utf8'));
    const { rollout, issues } = await loadOne(censusFile(LEGACY));
    assert.deepEqual(issues, []);
    assert.equal(rollout.id, doc.sessionId);
    assert.equal(rollout.metadata.layout, 'json');
    assert.equal(rollout.steps.length, doc.messages.length);
    assert.deepEqual(
      rollout.steps.map((s) => s.message),
      doc.messages.map((m: any) => m.content),
    );
    assert.equal(rollout.task.instruction, doc.messages[0].content);
    assert.deepEqual(rollout.steps[1].tokens, { prompt: 8175, completion: 75 + 632, cached: 0 });
    // Messages 3-6 were written with all-zero counts: unknown, not zero.
    assert.deepEqual(
      rollout.steps.map((s, i) => (doc.messages[i].tokens?.total === 0 ? s.tokens : 'known')).filter((t) => t !== 'known'),
      [null, null, null, null],
    );
    assert.ok(rollout.steps[1].reasoning!.startsWith('Inspecting the Project\n'));
    assert.deepEqual(rollout.steps.flatMap((s) => s.actions), [], 'the file records no tool calls');
    const text = fs.readFileSync(censusFile(LEGACY), 'utf8');
    assert.equal((rangeValue(text, rollout.steps[5]) as any).id, doc.messages[5].id);
  });
});

describe('formats/geminiCli — shell results, echoes, rewinds (lines added to the real log in the CLI’s shapes)', () => {
  const base = fs.readFileSync(censusFile(JSONL), 'utf8');
  // A gemini message with a shell call that failed, one that was cancelled, then the tool results
  // sent back as a user message (the CLI records it; the calls already hold the results).
  const shell = {
    id: 'g-shell',
    timestamp: '2026-04-23T13:00:00.000Z',
    type: 'gemini',
    content: '',
    model: 'gemini-3-flash-preview',
    tokens: { input: 100, output: 10, cached: 50, thoughts: 5, tool: 2, total: 117 },
    toolCalls: [
      {
        id: 'run_shell_command-1',
        name: 'run_shell_command',
        args: { command: 'npm run build', description: 'Build', directory: 'web' },
        result: [{ functionResponse: { id: 'run_shell_command-1', name: 'run_shell_command', response: { output: 'Command: npm run build\nDirectory: web\nOutput: error TS2322\nError: (none)\nExit Code: 2\nSignal: (none)' } } }],
        status: 'error',
        timestamp: '2026-04-23T13:00:04.000Z',
      },
      { id: 'run_shell_command-2', name: 'run_shell_command', args: { command: 'sleep 100' }, result: [{ functionResponse: { id: 'run_shell_command-2', name: 'run_shell_command', response: { error: 'Command was cancelled by the user.' } } }], status: 'cancelled', timestamp: '2026-04-23T13:00:09.000Z' },
      { id: 'replace-3', name: 'replace', args: { file_path: 'a.ts', old_string: 'x', new_string: 'y', expected_replacements: 3 }, status: 'success', timestamp: '2026-04-23T13:00:10.000Z' },
    ],
  };
  const echo = {
    id: 'u-echo',
    timestamp: '2026-04-23T13:00:10.010Z',
    type: 'user',
    content: [
      { functionResponse: { id: 'replace-3', name: 'replace', response: { output: 'Successfully modified file: a.ts (3 replacements).' } } },
      { functionResponse: { id: 'nowhere', name: 'read_file', response: { output: '?' } } },
    ],
  };
  const ask = { id: 'u-ask', timestamp: '2026-04-23T13:01:00.000Z', type: 'user', content: [{ text: 'try again' }] };
  const lines = [shell, echo, ask, { $rewindTo: 'u-ask' }, { id: 'u-ask2', timestamp: '2026-04-23T13:02:00.000Z', type: 'user', content: [{ text: 'build it' }] }, { id: 'e1', timestamp: '2026-04-23T13:02:05.000Z', type: 'error', content: '[API Error: quota exhausted]' }];
  const text = base + lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const baseLines = base.split('\n').filter((l) => l !== '').length;

  it('reads exit codes from the shell result text, errors, cancellations; echoes fill results; rewinds remove', async () => {
    const { rollout, issues } = await loadOne(tmpFile('session-2026-04-23T12-52-0ab84937.jsonl', text));
    const steps = rollout.steps.slice(11);
    assert.deepEqual(
      steps.map((s) => [s.role, s.event?.kind ?? null]),
      [
        ['agent', null],
        ['system', 'notice'],
        ['user', null],
        ['system', 'api_error'],
      ],
    );
    const [build, sleep, replace] = steps[0].actions;
    assert.equal(build.kind, 'shell');
    assert.equal(build.command, 'npm run build');
    assert.deepEqual(build.arguments, { command: 'npm run build', description: 'Build', directory: 'web' });
    assert.equal(sleep.command, 'sleep 100');
    assert.deepEqual(replace.edit, { op: 'replace', path: 'a.ts', edits: [{ oldText: 'x', newText: 'y', replaceAll: true }] });
    const [o1, o2, o3] = steps[0].observations;
    assert.equal(o1.exitCode, 2);
    assert.equal(o1.exitCodeFrom, 'text');
    assert.equal(o1.isError, true);
    assert.deepEqual(o2, { callId: 'run_shell_command-2', output: 'Command was cancelled by the user.', exitCode: null, truncated: false, isError: true, interrupted: true });
    assert.deepEqual(o3, { callId: 'replace-3', output: 'Successfully modified file: a.ts (3 replacements).', exitCode: null, truncated: false });
    assert.deepEqual(steps[0].tokens, { prompt: 102, completion: 15, cached: 50 });
    assert.equal(steps[0].durationSec, 10);
    assert.equal(rollout.metadata.toolResultEchoes, 1);
    assert.equal(steps[1].event!.label, 'Rewind: 1 message(s) removed');
    assert.equal(steps[2].message, 'build it');
    assert.ok(!rollout.steps.some((s) => s.message === 'try again'));
    assert.deepEqual(
      issues.map((i) => [i.line, i.pointer]),
      [[baseLines + 2, '/content/1/functionResponse/id']],
    );
  });

  it('streams the rewind: the steps from the removed message on are reported changed', () => {
    const file = tmpFile('session-stream.jsonl', text);
    const { lines: all, stream: s } = stream(file);
    s.push(all.slice(0, baseLines + 3));
    const before = s.snapshot()[0];
    assert.equal(before.rollout.steps.at(-1)!.message, 'try again');
    s.push([all[baseLines + 3]]);
    const after = s.snapshot()[0];
    assert.equal(after.changedFrom, before.rollout.steps.length - 1);
    assert.equal(after.rollout.steps.length, before.rollout.steps.length);
    assert.equal(after.rollout.steps.at(-1)!.event?.kind, 'notice');
  });

  it('helpers: shell exit codes, tokens, edits', () => {
    assert.equal(shellExitCode('Command: ls\nStdout: a\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)'), 0);
    assert.equal(shellExitCode('Command: sleep 9\nExit Code: (none)\nSignal: 15'), null);
    assert.equal(geminiTokens({ input: 0, output: 0, cached: 0, thoughts: 0, tool: 0, total: 0 }), null);
    assert.equal(geminiAction('write_file', { file_path: 'x' }, null).edit, undefined, 'no content: no replayable edit');
    assert.equal(geminiAction('read_file', { absolute_path: '/a' }, 'c').kind, 'tool');
  });
});

describe('formats/geminiCli — bad input', () => {
  const base = fs.readFileSync(censusFile(JSONL), 'utf8').split('\n').filter((l) => l !== '');

  it('a truncated last line and an unknown message type are located; the rest is shown', async () => {
    const lines = [...base.slice(0, 8), JSON.stringify({ id: 'x1', timestamp: 't', type: 'hologram', content: 'hi' }), base[8].slice(0, 200)];
    const { rollout, issues } = await loadOne(tmpFile('session-bad.jsonl', lines.join('\n')));
    assert.deepEqual(
      issues.map((i) => [i.line, i.pointer === null ? null : i.pointer]),
      [
        [9, '/type'],
        [10, issues[1].pointer],
        [9, null],
      ],
    );
    assert.equal(issues[1].found, 'the end of the line (the row may be cut off)');
    assert.match(issues[2].expected, /step timestamp \(ISO-8601 time\)/, 'its timestamp "t" is no time (core/oddities.ts)');
    assert.equal(rollout.steps.at(-1)!.event?.kind, 'unknown_record');
    assert.equal(rollout.steps[2].actions.length, 5, 'the steps before the cut are whole');
  });

  it('declines other JSONL and JSON', () => {
    assert.equal(geminiCliLoader.detect(makeInput('/x/a.jsonl', '{"type":"session_meta","payload":{}}\n', nodeFiles)).accept, false);
    assert.equal(geminiCliLoader.detect(makeInput('/x/a.json', '{"messages":[{"role":"user","content":"hi"}]}', nodeFiles)).accept, false);
  });
});
