/**
 * Codex CLI loader on the real rollouts of `../shared/format-census/codex-cli/`: a Codex CLI 0.39
 * session from the VS Code extension (VibeCodingTracker's fixture; its last four lines were added
 * by that project: an `exec` cell and two `patch_apply_end` events whose calls are not in the file)
 * and two Codex Desktop 0.104 sessions whose text, arguments and outputs the publisher redacted
 * (madshn/localpush). Expected values are read out of the files by the tests' own parsing. Bad
 * inputs are derived from the same files; the early bare-item and TypeScript-CLI layouts, of which
 * no real file is in the census, are checked on small inline sessions of the shapes openai/codex
 * wrote (marked as such).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { codexCliLoader } from '../../../src/core/formats/codexCli';
import { readOutput, userRequestText } from '../../../src/core/formats/codexCliItems';
import { pickLoader } from '../../../src/core/formats/registry';
import type { RecordStream } from '../../../src/core/formats/types';
import { JsonDoc, LineIndex, splitJsonl } from '../../../src/core/json';
import { loadFile, makeInput } from '../../../src/core/load';
import type { Rollout, Step } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { censusFile, rangeValue, tmpFile } from '../samples';

const V039 = 'codex-cli/vibecodingtracker_codex.jsonl';
const DESKTOP_LONG = 'codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
const DESKTOP_SHORT = 'codex-cli/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';

interface Rec {
  line: number;
  timestamp?: string;
  type: string;
  payload: any;
}

/** The file's records, parsed by the test (1-based line numbers). */
function records(rel: string): Rec[] {
  return fs
    .readFileSync(censusFile(rel), 'utf8')
    .split('\n')
    .map((t, i) => ({ t, line: i + 1 }))
    .filter((x) => x.t.trim() !== '')
    .map((x) => ({ line: x.line, ...JSON.parse(x.t) }));
}

const items = (recs: Rec[], type: string) => recs.filter((r) => r.type === 'response_item' && r.payload.type === type);
const events = (recs: Rec[], type: string) => recs.filter((r) => r.type === 'event_msg' && r.payload.type === type);

async function loadOne(file: string): Promise<{ rollout: Rollout; issues: NonNullable<Awaited<ReturnType<typeof loadFile>>['issues']> }> {
  const r = await loadFile(file);
  assert.equal(r.format, 'codex-cli');
  assert.equal(r.rollouts.length, 1);
  return { rollout: r.rollouts[0], issues: r.issues ?? [] };
}

const actions = (r: Rollout) => r.steps.flatMap((s) => s.actions);
const agentSteps = (r: Rollout) => r.steps.filter((s) => s.role === 'agent');

/** Feeds a file to a fresh stream in chunks of the given line counts (cycled). */
function streamFile(file: string, chunks: number[]): { stream: RecordStream; snaps: ReturnType<RecordStream['snapshot']>[] } {
  const text = fs.readFileSync(file, 'utf8');
  const index = new LineIndex(text);
  const lines = splitJsonl(text);
  const stream = codexCliLoader.stream!({ path: file, files: nodeFiles, parseLine: (l) => JsonDoc.parse(file, l.text, l.offset, index, true) });
  const snaps = [];
  for (let i = 0, c = 0; i < lines.length; c++) {
    const n = chunks[c % chunks.length];
    stream.push(lines.slice(i, i + n));
    i += n;
    snaps.push(stream.snapshot());
  }
  stream.end?.();
  snaps.push(stream.snapshot());
  return { stream, snaps };
}

describe('formats/codexCli — Codex CLI 0.39 (VS Code extension) session', () => {
  const recs = records(V039);
  const meta = recs[0].payload;
  let rollout: Rollout;
  let issues: Awaited<ReturnType<typeof loadOne>>['issues'];
  before(async () => ({ rollout, issues } = await loadOne(censusFile(V039))));

  it('is picked by content and reads session meta, turn context and git', () => {
    const file = censusFile(V039);
    assert.equal(pickLoader(makeInput(file, fs.readFileSync(file, 'utf8'), nodeFiles)).id, 'codex-cli');
    assert.equal(rollout.id, meta.id);
    assert.equal(rollout.agent.name, 'codex');
    assert.equal(rollout.agent.version, '0.39.0');
    assert.equal(rollout.agent.version, meta.cli_version);
    assert.equal(rollout.agent.model, 'aide-gpt-5');
    assert.equal(rollout.agent.model, recs.find((r) => r.type === 'turn_context')!.payload.model);
    assert.equal(rollout.environment.workdir, '/proj/ds906659/gai/claude-code');
    assert.deepEqual(rollout.metadata.git, meta.git);
    assert.equal(rollout.metadata.originator, 'codex_vscode');
    assert.equal(rollout.metadata.approvalPolicy, 'never');
    assert.equal(rollout.derived, undefined);
  });

  it('shows the environment context as context and takes the request out of the IDE block', () => {
    const env = rollout.steps[0];
    assert.equal(env.role, 'system');
    assert.deepEqual(env.event, { kind: 'notice', label: 'Environment context' });
    assert.ok(env.message.startsWith('<environment_context>'));
    const ide = items(recs, 'message').filter((r) => r.payload.role === 'user')[1].payload.content[0].text as string;
    assert.ok(ide.startsWith('# Context from my IDE setup:'));
    const request = ide.slice(ide.indexOf('## My request for Codex:') + '## My request for Codex:'.length).trim();
    assert.equal(rollout.task.instruction, request);
    assert.ok(rollout.task.instruction!.startsWith('幫我檢查一下 go.mod'));
    assert.equal(rollout.steps[1].role, 'user');
    assert.equal(rollout.steps.filter((s) => s.role === 'user').length, 1, 'one user request (item and event are one turn)');
  });

  it('has the shell commands in order, from the argv scripts, with recorded exit codes', () => {
    const calls = items(recs, 'function_call').filter((r) => r.payload.name === 'shell');
    const scripts = calls.map((r) => JSON.parse(r.payload.arguments).command[2] as string);
    const plain = scripts.filter((s) => !s.startsWith('applypatch'));
    const shell = actions(rollout).filter((a) => a.kind === 'shell');
    assert.deepEqual(
      shell.map((a) => a.command),
      plain,
    );
    assert.equal(shell[0].command, 'ls -la');
    assert.equal(shell[1].command, "sed -n '1,200p' go.mod");
    assert.equal(shell.at(-1)!.command, 'rm -f TODO.md && echo removed && rg -n "TODO.md" || true');
    // Exit codes are the outputs' metadata.exit_code, recorded (not read from text).
    const outputs = new Map(items(recs, 'function_call_output').map((r) => [r.payload.call_id, r.payload.output as string]));
    const obs = rollout.steps.flatMap((s) => s.observations);
    for (const a of shell) {
      const o = obs.find((x) => x.callId === a.callId)!;
      const recorded = JSON.parse(outputs.get(a.callId!)!);
      assert.equal(o.exitCode, recorded.metadata.exit_code);
      assert.equal(o.exitCodeFrom, undefined);
      assert.equal(o.output, recorded.output);
    }
    assert.equal(obs.filter((o) => o.exitCode === 0).length, 13);
  });

  it('turns the applypatch heredocs sent through the shell into codex patch edits', () => {
    const heredocs = items(recs, 'function_call')
      .map((r) => ({ id: r.payload.call_id, script: JSON.parse(r.payload.arguments).command?.[2] as string | undefined }))
      .filter((c) => c.script?.startsWith('applypatch'));
    const edits = actions(rollout).filter((a) => a.kind === 'file_edit');
    assert.equal(edits.length, heredocs.length);
    assert.deepEqual(
      edits.map((a) => a.path),
      ['go.mod', 'README.zh-TW.md', 'README.zh-CN.md', null, '.python-version'],
    );
    edits.forEach((a, i) => {
      const body = /<< 'PATCH'\n([\s\S]*)\nPATCH$/.exec(heredocs[i].script!)![1];
      assert.deepEqual(a.edit, { op: 'patch', path: a.path, patch: body, dialect: 'codex' });
      assert.equal(a.callId, heredocs[i].id);
    });
    const obs = rollout.steps.flatMap((s) => s.observations);
    assert.equal(obs.find((o) => o.callId === edits[0].callId)!.output, 'Success. Updated the following files:\nM go.mod\n');
    // The empty patch was rejected with a plain text output: no exit code.
    const rejected = obs.find((o) => o.callId === edits[3].callId)!;
    assert.equal(rejected.output, 'patch rejected: empty patch');
    assert.equal(rejected.exitCode, null);
  });

  it('counts each assistant turn once (response item and agent_message event are one turn)', () => {
    const said = items(recs, 'message').filter((r) => r.payload.role === 'assistant').map((r) => r.payload.content[0].text as string);
    assert.equal(said.length, 9);
    assert.equal(events(recs, 'agent_message').length, 9);
    assert.deepEqual(
      agentSteps(rollout).filter((s) => s.message !== '').map((s) => s.message),
      said,
    );
  });

  it('gives each model response the token count of its turn (last_token_usage; repeats not counted)', () => {
    const counts = events(recs, 'token_count').map((r) => r.payload.info.last_token_usage);
    const withTokens = rollout.steps.filter((s) => s.tokens);
    assert.equal(withTokens.length, counts.length);
    withTokens.forEach((s, i) => assert.deepEqual(s.tokens, { prompt: counts[i].input_tokens, completion: counts[i].output_tokens, cached: counts[i].cached_input_tokens }));
    assert.deepEqual(withTokens[0].tokens, { prompt: 5645, completion: 810, cached: 5504 });
    assert.equal(withTokens[0].message, 'I’ll scan the repo for go.mod and Python version references, update go.mod to 1.24, set .python-version to 3.10, look up the latest Go release online, write two Markdown notes (繁中/简中), and remove TODO.md.');
    assert.deepEqual(rollout.metadata.totalTokenUsage, events(recs, 'token_count').at(-1)!.payload.info.total_token_usage);
  });

  it('points each step at its records and reports the patch results whose calls are not in the file', () => {
    const text = fs.readFileSync(censusFile(V039), 'utf8');
    const s = rollout.steps.find((x) => x.actions[0]?.callId === 'call_pEqHamKTEvL6ofrtlsNEi8dt')!;
    // The range starts at the step's first record (the agent_message event) and ends with its output.
    const lines = text.slice(s.range!.start, s.range!.end).split('\n').map((l) => JSON.parse(l));
    assert.equal(lines[0].payload.type, 'agent_message');
    assert.equal(lines.at(-1).payload.type, 'function_call_output');
    assert.equal(lines.at(-1).payload.call_id, 'call_pEqHamKTEvL6ofrtlsNEi8dt');
    assert.equal(s.timestamp, lines[0].timestamp);
    assert.deepEqual(
      issues.map((i) => [i.line, i.pointer]),
      [
        [109, '/payload/call_id'],
        [110, '/payload/call_id'],
      ],
    );
    const orphans = rollout.steps.filter((x) => x.role === 'environment');
    assert.deepEqual(
      orphans.map((x) => [x.observations[0].callId, x.observations[0].isError ?? false]),
      [
        ['call_patch_apply_ok01', false],
        ['call_patch_apply_fail01', true],
      ],
    );
    assert.equal((rangeValue(text, orphans[1]) as any).payload.stdout, 'Failed to apply patch: context mismatch\n');
    assert.ok((rollout.metadata.warnings as string[])[0].includes(':109:'));
  });
});

describe('formats/codexCli — Codex Desktop 0.104 sessions (redacted text)', () => {
  it('reads every call of the long session: exec_command, apply_patch, write_stdin, web search', async () => {
    const recs = records(DESKTOP_LONG);
    const { rollout, issues } = await loadOne(censusFile(DESKTOP_LONG));
    assert.deepEqual(issues, []);
    assert.equal(rollout.id, '019c8a4c-ed82-79a1-aa28-7738fc5ab61a');
    assert.equal(rollout.agent.version, '0.104.0-alpha.1');
    assert.equal(rollout.agent.model, 'gpt-5.3-codex');
    assert.equal(rollout.metadata.originator, 'Codex Desktop');
    const expected = recs
      .filter((r) => r.type === 'response_item' && /^(function_call|custom_tool_call|web_search_call)$/.test(r.payload.type))
      .map((r) => (r.payload.type === 'web_search_call' ? 'web_search' : r.payload.name));
    assert.equal(expected.length, 82 + 22 + 1);
    assert.deepEqual(
      actions(rollout).map((a) => a.tool),
      expected,
    );
    // The publisher redacted the patches: kept as edits that cannot be re-applied.
    const patches = actions(rollout).filter((a) => a.tool === 'apply_patch');
    assert.equal(patches.length, 22);
    for (const p of patches) assert.equal(p.edit?.op, 'other');
    // Every call has its output, joined by call_id.
    const outputs = [...items(recs, 'function_call_output'), ...items(recs, 'custom_tool_call_output')];
    const obs = rollout.steps.flatMap((s) => s.observations);
    assert.equal(obs.length, outputs.length);
    for (const o of outputs) assert.equal(obs.find((x) => x.callId === o.payload.call_id)!.output, o.payload.output);
  });

  it('keeps one turn per assistant message and one per user request', async () => {
    const recs = records(DESKTOP_LONG);
    const { rollout } = await loadOne(censusFile(DESKTOP_LONG));
    const said = items(recs, 'message').filter((r) => r.payload.role === 'assistant');
    assert.equal(said.length, 43);
    assert.equal(events(recs, 'agent_message').length, 43);
    assert.deepEqual(
      agentSteps(rollout).filter((s) => s.message !== '').map((s) => s.message),
      said.map((r) => r.payload.content[0].text),
    );
    // Each user_message event confirms the user item just before it: five requests.
    const users = rollout.steps.filter((s) => s.role === 'user');
    assert.equal(users.length, events(recs, 'user_message').length);
    assert.equal(users.length, 5);
    assert.equal(rollout.task.instruction, '[REDACTED_TEXT len=516 sha=05857781]');
    // Reasoning: summaries as text, encrypted-only reasoning marked, none from the events twice.
    const reasoning = agentSteps(rollout).map((s) => s.reasoning ?? '');
    assert.equal(reasoning.join('\n\n').split('[REDACTED_TEXT').length - 1, items(recs, 'reasoning').filter((r) => r.payload.summary.length).length);
    assert.ok(reasoning.includes('[encrypted reasoning]'));
  });

  it('gives each model response the tokens of its last_token_usage, the repeated counts once', async () => {
    const recs = records(DESKTOP_LONG);
    const { rollout } = await loadOne(censusFile(DESKTOP_LONG));
    const counts: any[] = [];
    let prev = '';
    for (const r of events(recs, 'token_count')) {
      if (!r.payload.info) continue;
      const key = JSON.stringify(r.payload.info.total_token_usage);
      if (key !== prev) counts.push(r.payload.info.last_token_usage);
      prev = key;
    }
    const withTokens = rollout.steps.filter((s) => s.tokens);
    assert.equal(withTokens.length, counts.length);
    withTokens.forEach((s, i) => assert.equal(s.tokens!.prompt, counts[i].input_tokens));
    assert.ok(withTokens.every((s) => s.role === 'agent'));
    assert.deepEqual(withTokens[0].tokens, { prompt: 17203, completion: 358, cached: 3456 });
  });

  it('reads the short session: MCP calls in order, instructions and developer messages as system steps', async () => {
    const recs = records(DESKTOP_SHORT);
    const { rollout } = await loadOne(censusFile(DESKTOP_SHORT));
    assert.deepEqual(
      actions(rollout).map((a) => a.tool),
      items(recs, 'function_call').map((r) => r.payload.name),
    );
    assert.equal(actions(rollout)[0].tool, 'mcp__cloud-associates__search_workflows');
    assert.deepEqual(
      rollout.steps.map((s) => s.role),
      ['system', 'system', 'system', 'system', 'system', 'system', 'system', 'user', 'agent', 'agent', 'agent', 'agent', 'agent', 'agent'],
    );
    assert.equal(rollout.steps[0].sourceId, 'base_instructions');
    // The two user items that no user_message event confirms are context.
    assert.deepEqual(
      rollout.steps.filter((s) => s.event?.label === 'Context (no user_message event)').map((s) => s.message),
      items(recs, 'message').filter((r) => r.payload.role === 'user').slice(0, 2).map((r) => r.payload.content[0].text),
    );
    assert.equal(rollout.steps.at(-1)!.message, items(recs, 'message').at(-1)!.payload.content[0].text);
    assert.equal(rollout.steps.at(-1)!.durationSec, null);
  });
});

describe('formats/codexCli — event and item orderings', () => {
  it('pairs events with items also when the item comes first (the same turns as the file as written)', async () => {
    const file = censusFile(V039);
    const { rollout } = await loadOne(file);
    // The 0.39 writer puts each agent_message event before its response item; move every event after it.
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
    const out: string[] = [];
    let held: string[] = [];
    for (const l of lines) {
      const v = JSON.parse(l);
      if (v.type === 'event_msg' && v.payload.type === 'agent_message') {
        held.push(l);
        continue;
      }
      out.push(l);
      if (v.type === 'response_item' && v.payload.type === 'message' && v.payload.role === 'assistant') {
        out.push(...held);
        held = [];
      }
    }
    const swapped = await loadOne(tmpFile('rollout-swapped.jsonl', [...out, ...held].join('\n') + '\n'));
    assert.deepEqual(
      agentSteps(swapped.rollout).map((s) => [s.message, s.actions.map((a) => a.callId), s.tokens]),
      agentSteps(rollout).map((s) => [s.message, s.actions.map((a) => a.callId), s.tokens]),
    );
  });
});

describe('formats/codexCli — stream', () => {
  for (const rel of [V039, DESKTOP_LONG]) {
    it(`gives the rollout load() gives when fed in chunks (${rel.split('/')[1].slice(0, 24)}…)`, async () => {
      const file = censusFile(rel);
      const { rollout } = await loadOne(file);
      const { snaps } = streamFile(file, [1, 7, 3, 50]);
      const last = snaps.at(-1)!;
      assert.equal(last.length, 1);
      const { warnings, ...meta } = rollout.metadata;
      const streamed = last[0].rollout;
      assert.deepEqual(streamed.steps, rollout.steps);
      assert.deepEqual({ ...streamed, steps: [], metadata: {} }, { ...rollout, steps: [], metadata: {} });
      assert.deepEqual(streamed.metadata, meta);
      void warnings;
    });
  }

  it('says the last step changed when an output arrives for it, and keeps the earlier steps as they were', () => {
    const file = censusFile(V039);
    const text = fs.readFileSync(file, 'utf8');
    const lines = splitJsonl(text);
    const at = lines.findIndex((l) => l.text.includes('"function_call_output","call_id":"call_C2kTMOt95gLNlsiRFiI8qUSh"'));
    const index = new LineIndex(text);
    const stream = codexCliLoader.stream!({ path: file, files: nodeFiles, parseLine: (l) => JsonDoc.parse(file, l.text, l.offset, index, true) });
    stream.push(lines.slice(0, at));
    const before = stream.snapshot()[0];
    const lastIndex = before.rollout.steps.length - 1;
    const last = before.rollout.steps[lastIndex];
    assert.equal(last.actions[0].command, "sed -n '1,200p' go.mod");
    assert.deepEqual(last.observations, []);
    stream.push([lines[at]]);
    const after = stream.snapshot()[0];
    assert.equal(after.changedFrom, lastIndex);
    assert.equal(after.rollout.steps.length, before.rollout.steps.length);
    assert.equal(after.rollout.steps[lastIndex].observations[0].exitCode, 0);
    for (let i = 0; i < lastIndex; i++) assert.equal(after.rollout.steps[i], before.rollout.steps[i]);
    // The call durations of the outputs read (metadata.duration_seconds), an earlier snapshot's left as they were.
    assert.deepEqual(before.rollout.metadata.callDurations, { call_pEqHamKTEvL6ofrtlsNEi8dt: 0 });
    assert.deepEqual(after.rollout.metadata.callDurations, { call_pEqHamKTEvL6ofrtlsNEi8dt: 0, call_C2kTMOt95gLNlsiRFiI8qUSh: 0 });
    // Nothing new: the next snapshot changes nothing.
    const same = stream.snapshot()[0];
    assert.equal(same.changedFrom, after.rollout.steps.length);
    assert.deepEqual(same.rollout.metadata.callDurations, after.rollout.metadata.callDurations);
    // A new model response appends steps from the end.
    stream.push([lines[at + 1], lines[at + 2], lines[at + 3]]);
    const next = stream.snapshot()[0];
    assert.equal(next.changedFrom, after.rollout.steps.length);
    assert.equal(next.rollout.steps.at(-1)!.message, 'Next, I’ll read `.python-version`, search the repo for any hardcoded Python version strings, and then update versions.');
    assert.equal(next.rollout.task.instruction, after.rollout.task.instruction);
    assert.match(next.rollout.task.instruction ?? '', /^幫我檢查一下 go\.mod/);
    // Its output adds its duration; the snapshots before keep theirs.
    stream.push(lines.slice(at + 4).filter((l) => l.text.includes('call_ERiTWwvw3YkUekcDyl45F4lU')));
    assert.deepEqual(Object.keys(stream.snapshot()[0].rollout.metadata.callDurations as object), ['call_pEqHamKTEvL6ofrtlsNEi8dt', 'call_C2kTMOt95gLNlsiRFiI8qUSh', 'call_ERiTWwvw3YkUekcDyl45F4lU']);
    assert.deepEqual(Object.keys(next.rollout.metadata.callDurations as object), ['call_pEqHamKTEvL6ofrtlsNEi8dt', 'call_C2kTMOt95gLNlsiRFiI8qUSh']);
  });
});

describe('formats/codexCli — bad input', () => {
  const text = fs.readFileSync(censusFile(V039), 'utf8');
  const lines = text.split('\n').filter((l) => l !== '');

  it('a truncated last line is a located issue; the steps before it are shown', async () => {
    const cut = lines.slice(0, 20).join('\n') + '\n' + lines[20].slice(0, 120);
    const file = tmpFile('rollout-2025-09-19T09-02-12-cut.jsonl', cut);
    const { rollout, issues } = await loadOne(file);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].line, 21);
    assert.equal(issues[0].found, 'the end of the line (the row may be cut off)');
    assert.deepEqual(
      actions(rollout).filter((a) => a.kind === 'shell').map((a) => a.command),
      ['ls -la'],
    );
  });

  it('an unknown record type, an unknown response item and an output without its call stay visible, each located', async () => {
    const extra = [
      JSON.stringify({ timestamp: '2025-09-19T09:10:00.000Z', type: 'future_record', payload: { x: 1 } }),
      JSON.stringify({ timestamp: '2025-09-19T09:10:01.000Z', type: 'response_item', payload: { type: 'image_generation_call', call_id: 'call_img', prompt: 'a cat' } }),
      JSON.stringify({ timestamp: '2025-09-19T09:10:02.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_nowhere', output: 'Exit code: 3\nWall time: 0.2 seconds\nOutput:\nboom' } }),
      JSON.stringify({ timestamp: '2025-09-19T09:10:03.000Z', type: 'response_item', payload: { type: 'function_call', arguments: '{}', call_id: 'call_noname' } }),
    ];
    const file = tmpFile('rollout-bad.jsonl', [...lines.slice(0, 12), ...extra].join('\n') + '\n');
    const { rollout, issues } = await loadOne(file);
    assert.deepEqual(
      issues.map((i) => [i.line, i.pointer]),
      [
        [13, '/type'],
        [14, '/payload/type'],
        [15, '/payload/call_id'],
        [16, '/payload/name'],
      ],
    );
    const tail = rollout.steps.slice(-4);
    assert.equal(tail[0].event?.kind, 'unknown_record');
    assert.deepEqual(JSON.parse(tail[0].message), JSON.parse(extra[0]));
    assert.deepEqual(tail[1].actions[0], { kind: 'tool', command: null, tool: 'image_generation_call', arguments: JSON.parse(extra[1]).payload, callId: 'call_img' });
    assert.equal(tail[2].role, 'environment');
    assert.deepEqual(tail[2].observations[0], { callId: 'call_nowhere', output: 'Exit code: 3\nWall time: 0.2 seconds\nOutput:\nboom', exitCode: 3, exitCodeFrom: 'text', truncated: false });
    assert.equal(tail[3].event?.kind, 'unknown_record');
    assert.deepEqual(JSON.parse(tail[3].message), JSON.parse(extra[3]));
  });

  it('a file of no Codex record is declined; a session meta alone is a rollout without steps', async () => {
    const input = makeInput('/x/a.jsonl', '{"role":"user","content":"hi"}\n', nodeFiles);
    assert.equal(codexCliLoader.detect(input).accept, false);
    const file = tmpFile('rollout-2025-01-01T00-00-00-x.jsonl', '{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}\n');
    const { rollout } = await loadOne(file);
    assert.equal(rollout.id, 's');
    assert.deepEqual(rollout.steps, []);
  });
});

describe('formats/codexCli — outputs and user messages', () => {
  it('reads exit codes from the shell JSON (recorded) and from unified-exec text headers (text)', () => {
    assert.deepEqual(readOutput('{"output":"hi\\n","metadata":{"exit_code":1,"duration_seconds":0.5}}'), { text: 'hi\n', exitCode: 1, exitCodeFrom: 'recorded', durationSec: 0.5, isError: false });
    assert.deepEqual(readOutput('Exit code: 0\nWall time: 1.5 seconds\nOutput:\nExit code: 9'), { text: 'Exit code: 0\nWall time: 1.5 seconds\nOutput:\nExit code: 9', exitCode: 0, exitCodeFrom: 'text', durationSec: 1.5, isError: false });
    assert.equal(readOutput('Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 127\nOriginal token count: 3\nOutput:\nnope').exitCode, 127);
    assert.equal(readOutput('Chunk ID: 1\nWall time: 5.0 seconds\nProcess running with session ID 7\nOutput:\n').exitCode, null);
    assert.equal(readOutput('some output\nExit code: 2').exitCode, null, 'only the header is read');
    assert.deepEqual(readOutput({ content: 'denied', success: false }), { text: 'denied', exitCode: null, exitCodeFrom: null, durationSec: null, isError: true });
  });

  it('finds the request inside the IDE block', () => {
    assert.equal(userRequestText('# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nfix it\n'), 'fix it');
    assert.equal(userRequestText('plain request'), 'plain request');
  });
});

describe('formats/codexCli — early layouts (inline sessions of the shapes openai/codex wrote)', () => {
  it('reads a bare-item rollout (Rust CLI before session_meta): header, record_type markers, items, local_shell_call', async () => {
    // Shapes of codex-rs rollouts of mid 2025: line 1 `{id, timestamp, instructions, git}`, then bare items.
    const session = [
      { id: 'c27a914d', timestamp: '2025-08-20T13:20:47.060Z', instructions: 'Be brief.', git: { branch: 'main' } },
      { record_type: 'state' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/work/dated</cwd>\n</environment_context>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add notes' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['apply_patch', '*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n'] }), call_id: 'call_1' },
      { type: 'function_call_output', call_id: 'call_1', output: JSON.stringify({ output: 'Success. Updated the following files:\nA notes.txt\n', metadata: { exit_code: 0, duration_seconds: 0 } }) },
      { type: 'local_shell_call', call_id: 'call_2', status: 'completed', action: { type: 'exec', command: ['bash', '-lc', 'cat notes.txt'], working_directory: '/work/dated' } },
      { type: 'function_call_output', call_id: 'call_2', output: '[{"text":"hi\\n","type":"text"}]' },
      { record_type: 'state' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
    ];
    const file = tmpFile('rollout-2025-08-20-c27a914d.jsonl', session.map((v) => JSON.stringify(v)).join('\n') + '\n');
    const { rollout, issues } = await loadOne(file);
    assert.deepEqual(issues, []);
    assert.equal(rollout.id, 'c27a914d');
    assert.equal(rollout.metadata.layout, 'bare-items');
    assert.deepEqual(rollout.derived, ['environment.workdir']);
    assert.equal(rollout.environment.workdir, '/work/dated');
    assert.equal(rollout.task.instruction, 'add notes');
    assert.deepEqual(
      rollout.steps.map((s) => s.role),
      ['system', 'system', 'user', 'agent', 'agent', 'agent'],
    );
    const [edit, cat] = actions(rollout);
    assert.deepEqual(edit.edit, { op: 'patch', path: 'notes.txt', patch: '*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n', dialect: 'codex' });
    assert.equal(rollout.steps[3].reasoning, '[encrypted reasoning]');
    assert.equal(cat.command, 'cat notes.txt');
    assert.equal(rollout.steps[4].observations[0].output, 'hi\n');
    assert.deepEqual(rollout.metadata.skippedItems, { 'record_type:state': 2 });
  });

  it('reads a TypeScript-CLI session document {session, items}', async () => {
    const doc = {
      session: { timestamp: '2025-04-20T12:30:00.000Z', id: '4c3b0000-0000-4000-8000-000000000001', instructions: '' },
      items: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'port the cli' }] },
        { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
        { type: 'function_call_output', call_id: 'c1', output: '{"output":"a\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      ],
    };
    const text = JSON.stringify(doc, null, 2);
    const file = tmpFile('rollout-2025-04-20-4c3b0000.json', text);
    const { rollout } = await loadOne(file);
    assert.equal(rollout.metadata.layout, 'typescript-json');
    assert.equal(rollout.task.instruction, 'port the cli');
    assert.equal(actions(rollout)[0].command, 'ls');
    assert.equal(rollout.steps[1].observations[0].exitCode, 0);
    // The agent step covers its call and its output (two items of the document).
    const s = rollout.steps[1] as Step;
    assert.deepEqual(JSON.parse(`[${text.slice(s.range!.start, s.range!.end)}]`), [doc.items[1], doc.items[2]]);
  });
});
