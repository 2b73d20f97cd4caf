/**
 * Claude Code transcripts on the real files of `../shared/format-census/claude-code/` (CLI 2.1.38
 * `short.jsonl`, 2.1.39 `258c7280-….jsonl` with its subagent transcript, 1.0.95
 * `vibecodingtracker_claude_code.jsonl`; see PROVENANCE.tsv). Expected values are read out of the
 * files by the test's own parse wherever possible. Folder layouts (`<sid>.jsonl` +
 * `<sid>/subagents/agent-<id>.jsonl`), the 1.x in-file sidechain layout and bad inputs are built in
 * temp folders from the same real records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeCodeLoader, ClaudeCodeStream } from '../../../src/core/formats/claudeCode';
import { LOADERS } from '../../../src/core/formats/registry';
import type { StreamedRollout } from '../../../src/core/formats/types';
import { JsonDoc, LineIndex, splitJsonl } from '../../../src/core/json';
import { loadFile } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import type { Rollout, Step } from '../../../src/core/model';
import { acceptedBy, censusFile, CENSUS_DIR, tmpDir, tmpFile } from '../samples';

const SID = '258c7280-ae70-4798-800f-63464d01a85d';
const MAIN = `claude-code/${SID}.jsonl`;
const SUB = 'claude-code/258c7280_subagents_agent-a881341.jsonl';
const SHORT = 'claude-code/short.jsonl';
const V1 = 'claude-code/vibecodingtracker_claude_code.jsonl';

function text(rel: string): string {
  return fs.readFileSync(censusFile(rel), 'utf8');
}

/** The file's records, parsed by the test, with their 1-based line. */
function records(rel: string): { line: number; r: any }[] {
  return text(rel)
    .split('\n')
    .map((l, i) => ({ line: i + 1, l }))
    .filter((x) => x.l.trim() !== '')
    .map((x) => ({ line: x.line, r: JSON.parse(x.l) }));
}

/** Every tool_use block of the file's assistant records, in file order. */
function toolUses(rel: string): any[] {
  return records(rel).flatMap(({ r }) => (r.type === 'assistant' && Array.isArray(r.message.content) ? r.message.content.filter((b: any) => b.type === 'tool_use') : []));
}

async function loadAll(file: string): Promise<{ rollouts: Rollout[]; issues: NonNullable<Awaited<ReturnType<typeof loadFile>>['issues']> }> {
  const lf = await loadFile(file);
  assert.equal(lf.format, 'claude-code');
  return { rollouts: lf.rollouts, issues: lf.issues ?? [] };
}

/** The session laid out as Claude Code 2.1.x does: `<dir>/<sid>.jsonl` + `<dir>/<sid>/subagents/agent-a881341.jsonl`. */
function sessionFolder(withSubagent = true): { dir: string; main: string; sub: string } {
  const dir = tmpDir('ti-claude-');
  const main = path.join(dir, `${SID}.jsonl`);
  const sub = path.join(dir, SID, 'subagents', 'agent-a881341.jsonl');
  fs.copyFileSync(censusFile(MAIN), main);
  if (withSubagent) {
    fs.mkdirSync(path.dirname(sub), { recursive: true });
    fs.copyFileSync(censusFile(SUB), sub);
  }
  return { dir, main, sub };
}

const allSteps = (r: Rollout): Step[] => r.steps;
const actions = (r: Rollout) => allSteps(r).flatMap((s) => s.actions);
const observations = (r: Rollout) => allSteps(r).flatMap((s) => s.observations);

describe('formats/claudeCode detection', () => {
  it('reads every census Claude Code file and only those; other JSONL session formats are not taken', () => {
    for (const rel of [MAIN, SUB, SHORT, V1]) assert.deepEqual(acceptedBy(LOADERS, censusFile(rel), text(rel)), ['claude-code'], rel);
    for (const rel of ['codex-cli/vibecodingtracker_codex.jsonl', 'gemini-cli/session-jsonl_gemini.jsonl', 'copilot-cli/copilot.jsonl', 'kimi-cli/wire-short.jsonl']) {
      const f = path.join(CENSUS_DIR, rel);
      if (!fs.existsSync(f)) continue;
      assert.ok(!acceptedBy([claudeCodeLoader], f, fs.readFileSync(f, 'utf8')).length, `${rel} is not read as Claude Code`);
    }
  });

  it('finds the first message record past leading bookkeeping records (file-history-snapshot, progress)', () => {
    const t = text(SHORT);
    assert.notEqual(JSON.parse(t.split('\n')[0]).type, 'user');
    assert.deepEqual(acceptedBy([claudeCodeLoader], censusFile(SHORT), t), ['claude-code']);
  });
});

describe('formats/claudeCode on short.jsonl (2.1.38)', () => {
  it('makes one agent step of the five streamed records of one message, usage counted once', async () => {
    const { rollouts, issues } = await loadAll(censusFile(SHORT));
    assert.deepEqual(issues, []);
    assert.equal(rollouts.length, 1);
    const r = rollouts[0];
    const recs = records(SHORT);
    const first = recs.find((x) => x.r.type === 'user')!.r;
    assert.equal(r.id, first.sessionId);
    assert.deepEqual(r.agent, { name: 'claude-code', version: first.version, model: 'claude-opus-4-6' });
    assert.equal(r.environment.workdir, first.cwd);
    assert.equal(r.task.instruction, first.message.content);
    assert.equal(r.metadata.gitBranch, 'master');
    assert.equal(r.metadata.permissionMode, 'bypassPermissions');

    const parts = recs.filter((x) => x.r.type === 'assistant');
    assert.equal(new Set(parts.map((x) => x.r.message.id)).size, 1);
    const agent = r.steps.filter((s) => s.role === 'agent');
    assert.equal(agent.length, 1);
    const s = agent[0];
    assert.equal(s.sourceId, parts[0].r.message.id);
    const u = parts[parts.length - 1].r.message.usage;
    assert.deepEqual(s.tokens, { prompt: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens, completion: u.output_tokens, cached: u.cache_read_input_tokens });
    assert.match(s.reasoning ?? '', /^The user is having trouble starting their Phoenix server/);
    assert.equal(s.message, 'Let me check the project structure and try running the server to see the error.');
    assert.deepEqual(
      s.actions.map((a) => [a.kind, a.tool, a.command]),
      [
        ['shell', 'Bash', 'mix phx.server 2>&1 | head -80'],
        ['tool', 'Glob', null],
      ],
    );
    // Both calls were rejected by the user: errors, no exit code (none recorded).
    assert.deepEqual(
      s.observations.map((o) => [o.callId, o.isError, o.exitCode]),
      s.actions.map((a) => [a.callId, true, null]),
    );
    assert.equal(s.timestamp, parts[0].r.timestamp);
    // Show in Source: from its first record line to the end of its last (the second tool result).
    const t = text(SHORT);
    const lines = t.split('\n');
    const lastResult = recs.filter((x) => x.r.type === 'user' && Array.isArray(x.r.message.content) && x.r.message.content[0].type === 'tool_result').pop()!;
    assert.ok(s.range);
    assert.ok(t.slice(s.range.start).startsWith(lines[parts[0].line - 1]));
    assert.ok(t.slice(0, s.range.end).endsWith(lines[lastResult.line - 1]));
  });

  it('shows the interruption, the /model slash command and its output as what they are, never as the agent', async () => {
    const r = (await loadAll(censusFile(SHORT))).rollouts[0];
    assert.deepEqual(
      r.steps.map((s) => [s.role, s.event?.kind ?? null]),
      [
        ['user', null],
        ['agent', null],
        ['user', 'interrupted'],
        ['user', 'notice'],
        ['system', 'notice'],
      ],
    );
    assert.equal(r.steps[3].message, '/model');
    assert.equal(r.steps[3].event?.label, 'Slash command /model');
    assert.equal(r.steps[4].message, 'Kept model as \u001b[1mDefault (recommended)\u001b[22m');
  });
});

describe('formats/claudeCode on the 2.1.39 session with compaction and a subagent', () => {
  it('reads the session facts and every Bash command in order, exit codes only where the result says one', async () => {
    const { dir, main } = sessionFolder();
    const { rollouts, issues } = await loadAll(main);
    assert.deepEqual(issues, [], 'no warnings with the subagent transcript in place');
    assert.equal(rollouts.length, 1);
    const r = rollouts[0];
    assert.equal(r.id, SID);
    assert.deepEqual(r.agent, { name: 'claude-code', version: '2.1.39', model: 'claude-opus-4-6' });
    assert.equal(r.environment.workdir, '/home/USER/projects/spotter-worktrees/spotter-gqc');
    assert.equal(r.metadata.gitBranch, 'spotter-gqc');
    assert.equal(r.task.instruction, 'Implement spotter-gqc');
    assert.equal(r.metadata.unlinkedSubagents, undefined, dir);

    const bash = toolUses(MAIN).filter((b) => b.name === 'Bash');
    assert.equal(bash.length, 79);
    assert.deepEqual(
      actions(r).filter((a) => a.kind === 'shell').map((a) => a.command),
      bash.map((b) => b.input.command),
    );
    // The file's own failed Bash results: "Exit code N" at the start of an is_error result.
    const recorded = records(MAIN)
      .flatMap(({ r: rec }) => (rec.type === 'user' && Array.isArray(rec.message.content) ? rec.message.content : []))
      .filter((b: any) => b.type === 'tool_result' && b.is_error === true && bash.some((x) => x.id === b.tool_use_id))
      .map((b: any) => /^Exit code (\d+)/.exec(b.content)?.[1])
      .filter(Boolean)
      .map(Number);
    assert.deepEqual(recorded, [128, 1, 2, 2, 2]);
    const withCode = observations(r).filter((o) => o.exitCode !== null);
    assert.deepEqual(withCode.map((o) => o.exitCode), recorded);
    assert.ok(withCode.every((o) => o.exitCodeFrom === 'text' && o.isError === true));
    assert.match(withCode[0].output, /^Exit code 128\nfatal: The current branch spotter-gqc has no upstream branch/);
    // Every tool call got its result as an observation of its own step.
    assert.equal(observations(r).length, toolUses(MAIN).length);
    for (const s of r.steps) for (const o of s.observations) assert.ok(s.actions.some((a) => a.callId === o.callId));
  });

  it('keeps the edits precise enough to replay: a real Edit (path, old/new text) and a real Write (content)', async () => {
    const r = (await loadAll(sessionFolder().main)).rollouts[0];
    const edits = toolUses(MAIN).filter((b) => b.name === 'Edit');
    const writes = toolUses(MAIN).filter((b) => b.name === 'Write');
    const fe = actions(r).filter((a) => a.kind === 'file_edit');
    assert.equal(fe.length, edits.length + writes.length);
    const e = fe.find((a) => a.tool === 'Edit')!;
    assert.equal(e.callId, edits[0].id);
    assert.equal(e.path, edits[0].input.file_path);
    assert.deepEqual(e.edit, {
      op: 'replace',
      path: edits[0].input.file_path,
      edits: [{ oldText: edits[0].input.old_string, newText: edits[0].input.new_string, replaceAll: edits[0].input.replace_all === true }],
    });
    const w = fe.find((a) => a.tool === 'Write')!;
    assert.deepEqual(w.edit, { op: 'write', path: writes[0].input.file_path, content: writes[0].input.content });
  });

  it('counts a streamed message\'s usage once: the last of its records carries the final output tokens', async () => {
    const r = (await loadAll(sessionFolder().main)).rollouts[0];
    const parts = records(MAIN).filter((x) => x.r.type === 'assistant' && x.r.message.id === 'msg_01EEiRWuVvwAmenNJXZcerPY');
    assert.deepEqual(
      parts.map((x) => x.r.message.usage.output_tokens),
      [10, 10, 10, 10, 10, 441],
    );
    const s = r.steps.find((x) => x.sourceId === 'msg_01EEiRWuVvwAmenNJXZcerPY')!;
    assert.deepEqual(s.tokens, { prompt: 3 + 8037 + 17842, completion: 441, cached: 17842 });
    assert.equal(s.actions.length, 3);
    assert.equal(r.steps.filter((x) => x.sourceId === 'msg_01EEiRWuVvwAmenNJXZcerPY').length, 1);
  });

  it('shows the compaction boundary and the summary turn that follows it as compaction events', async () => {
    const r = (await loadAll(sessionFolder().main)).rollouts[0];
    const recs = records(MAIN);
    const boundary = recs.find((x) => x.r.subtype === 'compact_boundary')!;
    const i = r.steps.findIndex((s) => s.sourceId === boundary.r.uuid);
    assert.ok(i > 0);
    assert.deepEqual(r.steps[i].event, { kind: 'compaction', label: 'Conversation compacted (auto, 167094 tokens before)' });
    assert.equal(r.steps[i].role, 'system');
    const summary = recs.find((x) => x.r.isCompactSummary)!;
    assert.equal(r.steps[i + 1].sourceId, summary.r.uuid);
    assert.equal(r.steps[i + 1].event?.kind, 'compaction');
    assert.equal(r.steps[i + 1].role, 'system');
    assert.match(r.steps[i + 1].message, /^This session is being continued from a previous conversation/);
    // Hooks, progress, snapshots and queue operations are no turns; they are counted.
    const counts = r.metadata.records as Record<string, number>;
    assert.equal(counts.progress, recs.filter((x) => x.r.type === 'progress').length);
    assert.equal(counts['file-history-snapshot'], 28);
    assert.equal(r.steps.length, 159);
    assert.ok((r.metadata.queuedMessages as any[]).some((q) => q.content === 'check again' && q.line === 497));
  });

  it('links the Task step to the subagent transcript; the transcript links back to its parent', async () => {
    const { main, sub } = sessionFolder();
    const r = (await loadAll(main)).rollouts[0];
    const task = toolUses(MAIN).find((b) => b.name === 'Task')!;
    const step = r.steps.find((s) => s.actions.some((a) => a.callId === task.id))!;
    assert.deepEqual(step.links, [
      { relation: 'subagent', label: `Subagent: ${task.input.description}`, path: sub, rolloutId: `${SID}/agent-a881341`, callId: task.id },
    ]);
    assert.match(step.observations[0].output, /agentId: a881341/);

    const { rollouts, issues } = await loadAll(sub);
    assert.deepEqual(issues, []);
    const child = rollouts[0];
    assert.equal(child.id, `${SID}/agent-a881341`);
    assert.equal(child.metadata.agentId, 'a881341');
    assert.equal(child.agent.model, 'claude-sonnet-4-5-20250929');
    assert.equal(child.task.instruction, task.input.prompt);
    assert.deepEqual(child.links, [{ relation: 'parent', label: 'Parent session', path: main, rolloutId: SID, callId: null }]);
    const fetches = toolUses(SUB);
    assert.deepEqual(
      actions(child).map((a) => [a.kind, a.tool, (a.arguments as any).url]),
      fetches.map((b) => ['tool', 'WebFetch', b.input.url]),
    );
  });

  it('says where a subagent transcript is missing: the link carries the reason, a warning the line that named it', async () => {
    const { main, sub } = sessionFolder(false);
    const { rollouts, issues } = await loadAll(main);
    const link = rollouts[0].steps.flatMap((s) => s.links ?? [])[0];
    assert.equal(link.path, sub);
    assert.match(link.missing ?? '', /no agent-a881341\.jsonl in /);
    // The agentId is first named by the agent_progress record tied to the Task call.
    const progress = records(MAIN).find((x) => x.r.type === 'progress' && x.r.data?.type === 'agent_progress')!;
    assert.equal(progress.r.data.agentId, 'a881341');
    assert.deepEqual(
      issues.map((i) => [i.line, i.found]),
      [[progress.line, 'no such file']],
    );
    assert.match(issues[0].expected, /agent-a881341\.jsonl/);
    assert.deepEqual(rollouts[0].metadata.warnings, issues.map((i) => `${i.file}:${i.line}:1: expected ${i.expected}, found ${i.found}`));
  });

  it('reads the census copy of the subagent transcript on its own (flattened name): parent beside it', async () => {
    const { rollouts } = await loadAll(censusFile(SUB));
    assert.equal(rollouts[0].id, `${SID}/agent-a881341`);
    assert.deepEqual(rollouts[0].links?.map((l) => [l.relation, l.path, l.missing ?? null]), [['parent', censusFile(MAIN), null]]);
  });

  it('opens 1.x in-file sidechains as child rollouts tied to their Task call by prompt (layout built from the real records)', async () => {
    // The 2.1.39 subagent records, written the 1.x way: inside the main file after the Task call,
    // without agentId (and without the progress records, result agentId and text that name it).
    const mainLines = text(MAIN).split('\n').filter((l) => l.trim() !== '');
    const task = toolUses(MAIN).find((b) => b.name === 'Task')!;
    const at = mainLines.findIndex((l) => l.includes(`"id":"${task.id}"`));
    const strip = (l: string): string => {
      const o = JSON.parse(l);
      delete o.agentId;
      if (o.type === 'progress' && o.data?.type === 'agent_progress') return '';
      if (o.toolUseResult && typeof o.toolUseResult === 'object') delete o.toolUseResult.agentId;
      if (Array.isArray(o.message?.content)) {
        for (const b of o.message.content) {
          if (b.type === 'tool_result' && Array.isArray(b.content)) b.content = b.content.filter((c: any) => !/agentId:/.test(c.text ?? ''));
        }
      }
      return JSON.stringify(o);
    };
    const side = text(SUB).split('\n').filter((l) => l.trim() !== '').map(strip);
    const lines = [...mainLines.slice(0, at + 1), ...side, ...mainLines.slice(at + 1).map(strip)].filter(Boolean);
    const f = path.join(tmpDir('ti-claude-1x-'), `${SID}.jsonl`);
    fs.writeFileSync(f, lines.join('\n') + '\n');
    const { rollouts, issues } = await loadAll(f);
    assert.deepEqual(issues, []);
    assert.deepEqual(rollouts.map((r) => r.id), [SID, `${SID}/sidechain-1`]);
    const [main, child] = rollouts;
    const step = main.steps.find((s) => s.actions.some((a) => a.callId === task.id))!;
    assert.deepEqual(step.links, [{ relation: 'subagent', label: `Subagent: ${task.input.description}`, path: null, rolloutId: child.id, callId: task.id }]);
    assert.deepEqual(child.links, [{ relation: 'parent', label: 'Parent session', path: null, rolloutId: SID, stepIndex: step.index, callId: task.id }]);
    assert.equal(child.task.instruction, task.input.prompt);
    assert.deepEqual(actions(child).map((a) => a.tool), ['WebFetch', 'WebFetch']);
    assert.equal(child.agent.model, 'claude-sonnet-4-5-20250929');
    // The main rollout has exactly the steps it has with the subagent in its own file.
    const plain = (await loadAll(sessionFolder().main)).rollouts[0];
    assert.equal(main.steps.length, plain.steps.length);
  });
});

describe('formats/claudeCode: how a Task call finds its subagent transcript in other layouts', () => {
  /** The main file with every mention of the agentId but `keep` removed (result agentId, result text, progress). */
  function withoutAgentIds(keep: 'none' | 'result'): string {
    return text(MAIN)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const o = JSON.parse(l);
        if (o.type === 'progress' && o.data?.type === 'agent_progress') return '';
        if (keep === 'none' && o.toolUseResult && typeof o.toolUseResult === 'object') delete o.toolUseResult.agentId;
        if (Array.isArray(o.message?.content)) {
          for (const b of o.message.content) if (b.type === 'tool_result' && Array.isArray(b.content)) b.content = b.content.filter((c: any) => !/agentId:/.test(c.text ?? ''));
        }
        return JSON.stringify(o);
      })
      .filter(Boolean)
      .join('\n');
  }

  it('2.0.x: agent-<id>.jsonl beside the session file, named by the result\'s toolUseResult.agentId', async () => {
    const dir = tmpDir('ti-claude-20-');
    const main = path.join(dir, `${SID}.jsonl`);
    fs.writeFileSync(main, withoutAgentIds('result'));
    fs.copyFileSync(censusFile(SUB), path.join(dir, 'agent-a881341.jsonl'));
    const { rollouts, issues } = await loadAll(main);
    assert.deepEqual(issues, []);
    const link = rollouts[0].steps.flatMap((s) => s.links ?? [])[0];
    assert.equal(link.path, path.join(dir, 'agent-a881341.jsonl'));
    assert.equal(link.missing, undefined);
  });

  it('2.1.x: agent-<id>.meta.json {toolUseId} names the subagent when nothing in the session does', async () => {
    const { main, sub } = sessionFolder();
    fs.writeFileSync(main, withoutAgentIds('none'));
    const task = toolUses(MAIN).find((b) => b.name === 'Task')!;
    fs.writeFileSync(sub.replace(/\.jsonl$/, '.meta.json'), JSON.stringify({ agentType: task.input.subagent_type, description: task.input.description, toolUseId: task.id }));
    const { rollouts, issues } = await loadAll(main);
    assert.deepEqual(issues, []);
    assert.deepEqual(rollouts[0].steps.flatMap((s) => s.links ?? []).map((l) => [l.path, l.callId, l.missing ?? null]), [[sub, task.id, null]]);
    // The subagent transcript reads its parent's call id and type from the same meta file.
    const child = (await loadAll(sub)).rollouts[0];
    assert.equal(child.links?.[0].callId, task.id);
    assert.equal(child.metadata.subagentType, task.input.subagent_type);
  });

  it('no agentId anywhere and no sidechain: the link says so and a warning names the Task call\'s line', async () => {
    const { main } = sessionFolder(false);
    fs.writeFileSync(main, withoutAgentIds('none'));
    const { rollouts, issues } = await loadAll(main);
    const task = toolUses(MAIN).find((b) => b.name === 'Task')!;
    const callLine = fs.readFileSync(main, 'utf8').split('\n').findIndex((l) => l.includes(`"id":"${task.id}"`)) + 1;
    assert.deepEqual(issues.map((i) => i.line), [callLine]);
    const link = rollouts[0].steps.flatMap((s) => s.links ?? [])[0];
    assert.deepEqual([link.path, link.rolloutId], [null, null]);
    assert.match(link.missing ?? '', /does not say which subagent/);
  });
});

describe('formats/claudeCode on a 1.0.95 session (VibeCodingTracker fixture)', () => {
  it('reads the session: tool calls, a real Edit, MCP and TodoWrite calls, the resumed session\'s repeated record', async () => {
    const { rollouts, issues } = await loadAll(censusFile(V1));
    const r = rollouts[0];
    const recs = records(V1);
    assert.equal(r.id, recs[0].r.sessionId);
    assert.deepEqual(r.metadata.sessionIds, [...new Set(recs.map((x) => x.r.sessionId))]);
    assert.deepEqual(r.agent, { name: 'claude-code', version: '1.0.95', model: 'claude-sonnet-4-20250514' });
    // Line 49 repeats line 48's record (same uuid) under the resumed session's id.
    assert.equal(recs[48].r.uuid, recs[47].r.uuid);
    assert.deepEqual(r.metadata.repeatedRecords, [49]);
    const uses = toolUses(V1);
    assert.deepEqual(actions(r).map((a) => a.tool), uses.map((b) => b.name));
    assert.equal(observations(r).length, uses.length);
    const edit = uses.find((b) => b.name === 'Edit');
    assert.deepEqual(actions(r).find((a) => a.tool === 'Edit')!.edit, {
      op: 'replace',
      path: '/home/wei/repo/claude-code/go.mod',
      edits: [{ oldText: edit.input.old_string, newText: edit.input.new_string, replaceAll: false }],
    });
    assert.equal(edit.input.old_string, 'go 1.23.0\n\ntoolchain go1.24.3');
    const mcp = actions(r).find((a) => a.tool === 'mcp__context7__resolve-library-id')!;
    assert.equal(mcp.kind, 'tool');
    assert.deepEqual(mcp.arguments, { libraryName: 'golang' });
    assert.deepEqual(
      actions(r).filter((a) => a.kind === 'shell').map((a) => a.command),
      ['rm /home/wei/repo/claude-code/TODO.md'],
    );
    // The Caveat meta record, the /mcp and /exit echoes: system / user notices.
    const notices = r.steps.filter((s) => s.event?.kind === 'notice').map((s) => [s.role, s.event?.label, s.message]);
    assert.deepEqual(notices.slice(0, 3), [
      ['system', 'Caveat (local commands)', recs[50].r.message.content],
      ['user', 'Slash command /mcp', '/mcp'],
      ['system', 'Command output', '(no content)'],
    ]);
    // Line 85 is a `file-history-delta` bookkeeping record: counted, not a turn, no warning.
    assert.deepEqual(issues, []);
    assert.equal(recs[84].r.type, 'file-history-delta');
    assert.equal((r.metadata.records as Record<string, number>)['file-history-delta'], 1);
    assert.equal(r.steps.filter((s) => s.event?.kind === 'interrupted').length, 2);
  });
});

describe('formats/claudeCode bad input', () => {
  it('a truncated last line (a session being written) is a located warning; the steps before it are shown', async () => {
    const t = text(SHORT);
    const lines = splitJsonl(t);
    const last = lines[lines.length - 1];
    const f = path.join(tmpDir(), 'cut.jsonl');
    fs.writeFileSync(f, t.slice(0, last.offset + Math.floor(last.text.length / 2)));
    const { rollouts, issues } = await loadAll(f);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].line, last.line);
    assert.match(issues[0].found, /cut off/);
    assert.deepEqual(rollouts[0].steps.map((s) => s.role), ['user', 'agent', 'user', 'user']);
  });

  it('a tool_result without its tool_use is shown as an environment step, with a located warning', async () => {
    const recs = records(SHORT);
    const callLine = recs.find((x) => x.r.type === 'assistant' && x.r.message.content[0].name === 'Bash')!;
    const callId = callLine.r.message.content[0].id;
    const kept = text(SHORT).split('\n').filter((_, i) => i !== callLine.line - 1);
    const f = path.join(tmpDir(), 'orphan.jsonl');
    fs.writeFileSync(f, kept.join('\n'));
    const { rollouts, issues } = await loadAll(f);
    const resultLine = kept.findIndex((l) => l.includes(`"tool_use_id":"${callId}"`)) + 1;
    assert.deepEqual(issues.map((i) => [i.line, i.pointer]), [[resultLine, '/message/content/0/tool_use_id']]);
    const orphan = rollouts[0].steps.find((s) => s.role === 'environment')!;
    assert.equal(orphan.observations[0].callId, callId);
    assert.equal(orphan.observations[0].isError, true);
  });

  it('an unknown record type: shown raw when it looks like a turn, else counted with one warning per type', async () => {
    const base = records(SHORT)[3].r; // the user request
    const turn = { ...base, type: 'future-turn', uuid: 'u-future-1' };
    const other = { type: 'future-state', sessionId: base.sessionId, value: 1 };
    const f = path.join(tmpDir(), 'unknown.jsonl');
    fs.writeFileSync(f, [text(SHORT).trimEnd(), JSON.stringify(turn), JSON.stringify(other), JSON.stringify({ ...other, value: 2 })].join('\n') + '\n');
    const { rollouts, issues } = await loadAll(f);
    const n = text(SHORT).trimEnd().split('\n').length;
    assert.deepEqual(issues.map((i) => [i.line, i.found]), [
      [n + 1, 'string "future-turn"'],
      [n + 2, 'string "future-state"'],
    ]);
    const raw = rollouts[0].steps[rollouts[0].steps.length - 1];
    assert.deepEqual(raw.event, { kind: 'unknown_record', label: 'Unknown record type "future-turn"' });
    assert.equal(raw.message, base.message.content);
    assert.equal((rollouts[0].metadata.records as Record<string, number>)['future-state'], 2);
  });
});

describe('formats/claudeCode API errors and newer bookkeeping', () => {
  it('an API error (system api_error retry record, isApiErrorMessage synthetic reply) is a system step with event api_error', async () => {
    // Shapes as public readers of newer CLIs record them (system/api_error: error {status, message},
    // retryAttempt, maxRetries; the synthetic reply: model "<synthetic>", isApiErrorMessage, apiErrorStatus).
    const recs = records(SHORT);
    const user = recs.find((x) => x.r.type === 'user')!.r;
    const env = { parentUuid: user.uuid, isSidechain: false, userType: 'external', cwd: user.cwd, sessionId: user.sessionId, version: user.version, gitBranch: user.gitBranch };
    const retry = { ...env, type: 'system', subtype: 'api_error', level: 'error', error: { status: 529, message: 'Overloaded' }, retryInMs: 1000, retryAttempt: 1, maxRetries: 10, uuid: 'e-1', timestamp: '2026-02-10T21:20:00.000Z' };
    const reply = { ...env, type: 'assistant', uuid: 'e-2', timestamp: '2026-02-10T21:20:05.000Z', isApiErrorMessage: true, apiErrorStatus: 529, error: 'server_error', message: { id: 'x', model: '<synthetic>', role: 'assistant', type: 'message', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] } };
    const f = path.join(tmpDir(), 'api-error.jsonl');
    fs.writeFileSync(f, [JSON.stringify({ type: 'mode', mode: 'normal', sessionId: user.sessionId }), text(SHORT).trimEnd(), JSON.stringify(retry), JSON.stringify(reply)].join('\n') + '\n');
    assert.deepEqual(acceptedBy(LOADERS, f, fs.readFileSync(f, 'utf8')), ['claude-code'], 'a leading mode record does not hide the format');
    const { rollouts, issues } = await loadAll(f);
    assert.deepEqual(issues, []);
    const r = rollouts[0];
    const tail = r.steps.slice(-2);
    assert.deepEqual(tail.map((s) => [s.role, s.event, s.message]), [
      ['system', { kind: 'api_error', label: 'API error 529 (retry 1/10)' }, 'Overloaded'],
      ['system', { kind: 'api_error', label: 'API error 529 (server_error)' }, 'API Error: 529 Overloaded'],
    ]);
    // The synthetic reply is not the model: the rollout's model stays the real one.
    assert.equal(r.agent.model, 'claude-opus-4-6');
    assert.deepEqual(r.metadata.models, ['claude-opus-4-6']);
  });
});

describe('formats/claudeCode titles', () => {
  it('title: custom-title, else ai-title, else the summary whose leaf is a record of this file (1.x files carry others\' too)', async () => {
    const recs = records(SHORT);
    const leaf = recs.filter((x) => x.r.type === 'assistant').pop()!.r.uuid;
    const own = { type: 'summary', summary: 'Phoenix server fails to start', leafUuid: leaf };
    const other = { type: 'summary', summary: 'Some earlier session', leafUuid: '00000000-0000-4000-8000-000000000000' };
    const write = (extra: object[]): string => {
      const f = path.join(tmpDir(), 'titled.jsonl');
      fs.writeFileSync(f, [own, other].map((x) => JSON.stringify(x)).join('\n') + '\n' + text(SHORT).trimEnd() + '\n' + extra.map((x) => JSON.stringify(x) + '\n').join(''));
      return f;
    };
    const sid = recs.find((x) => x.r.sessionId)!.r.sessionId;
    const a = (await loadAll(write([]))).rollouts[0];
    assert.equal(a.metadata.title, own.summary);
    assert.equal(a.id, sid, 'the id comes from the first sessionId even after summary lines without one');
    assert.deepEqual((a.metadata.summaries as any[]).map((x) => x.summary), [own.summary, other.summary]);
    const b = (await loadAll(write([{ type: 'ai-title', aiTitle: 'Debug mix phx.server', sessionId: sid }]))).rollouts[0];
    assert.equal(b.metadata.title, 'Debug mix phx.server');
    const c = (await loadAll(write([{ type: 'ai-title', aiTitle: 'Debug mix phx.server', sessionId: sid }, { type: 'custom-title', customTitle: 'phx', sessionId: sid }]))).rollouts[0];
    assert.equal(c.metadata.title, 'phx');
  });
});

describe('formats/claudeCode record stream', () => {
  function streamOf(file: string, t: string): ClaudeCodeStream {
    const idx = new LineIndex(t);
    return claudeCodeLoader.stream!({ path: file, files: nodeFiles, parseLine: (l) => JsonDoc.parse(file, l.text, l.offset, idx, true) }) as ClaudeCodeStream;
  }

  it('chunks with snapshots in between end in the rollouts load() gives; steps before changedFrom never change', async () => {
    const { main } = sessionFolder();
    const t = fs.readFileSync(main, 'utf8');
    const lines = splitJsonl(t);
    const s = streamOf(main, t);
    await s.settle();
    let prev: StreamedRollout[] = [];
    const cuts = [1, 5, 6, 120, 487, 489, 1256, 1257, 1475, 1480, lines.length];
    let from = 0;
    for (const cut of cuts) {
      s.push(lines.slice(from, cut));
      from = cut;
      const snap = s.snapshot();
      const p = prev[0];
      const cur = snap[0];
      if (p) {
        assert.ok(cur.changedFrom <= p.rollout.steps.length || cur.changedFrom === cur.rollout.steps.length);
        for (let i = 0; i < cur.changedFrom && i < p.rollout.steps.length; i++) assert.deepEqual(cur.rollout.steps[i], p.rollout.steps[i], `step ${i} before changedFrom ${cur.changedFrom} at cut ${cut}`);
      }
      prev = JSON.parse(JSON.stringify(snap));
    }
    s.end();
    await s.settle();
    const final = s.snapshot().map((x) => x.rollout);
    const loaded = (await loadFile(main)).rollouts;
    assert.deepEqual(JSON.parse(JSON.stringify(final)), JSON.parse(JSON.stringify(loaded)));
  });

  it('a tool_result for the last step marks that step changed (changedFrom), without a new step', async () => {
    const file = censusFile(SHORT);
    const t = text(SHORT);
    const lines = splitJsonl(t);
    const firstResult = lines.findIndex((l) => l.text.includes('"type":"tool_result"'));
    const s = streamOf(file, t);
    s.push(lines.slice(0, firstResult));
    const before = s.snapshot()[0];
    assert.equal(before.rollout.steps.length, 2);
    assert.equal(before.rollout.steps[1].observations.length, 0);
    assert.equal(before.changedFrom, 0);
    s.push([lines[firstResult]]);
    const after = s.snapshot()[0];
    assert.equal(after.rollout.steps.length, 2);
    assert.equal(after.changedFrom, 1);
    assert.equal(after.rollout.steps[1].observations.length, 1);
    assert.equal(after.rollout.steps[0], before.rollout.steps[0], 'the unchanged step is the same value');
    const none = s.snapshot()[0];
    assert.equal(none.changedFrom, none.rollout.steps.length);
  });
});

describe('Claude Code warnings (severity)', () => {
  it('a missing subagent transcript is a warning: the file loads, show and validate do not fail on it', async () => {
    const f = await loadFile(censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
    const missing = (f.issues ?? []).filter((i) => /transcript of subagent a881341/.test(i.expected));
    assert.equal(missing.length, 1);
    assert.equal(missing[0].severity, 'warning');
    assert.equal(missing[0].line, 1474);
  });

  it('the incomplete last line of a session still being written is a warning that says so', async () => {
    const text = fs.readFileSync(censusFile('claude-code/short.jsonl'), 'utf8').trimEnd();
    const lastNl = text.lastIndexOf('\n');
    const cut = text.slice(0, lastNl + 1 + Math.floor((text.length - lastNl - 1) / 2));
    const p = tmpFile('live-session.jsonl', cut);
    const f = await loadFile(p);
    const last = cut.split('\n').length;
    const onLast = (f.issues ?? []).filter((i) => i.line === last);
    assert.ok(onLast.length >= 1);
    for (const i of onLast) {
      assert.equal(i.severity, 'warning');
      assert.match(i.found, /cut off|last line is incomplete/);
    }
  });
});
