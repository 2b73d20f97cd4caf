/**
 * Cline / Roo Code task histories (src/core/formats/cline.ts) on the real Cline task in
 * ../shared/format-census/cline-roo/api_conversation_history.json (native tool_use blocks, results as
 * `[tool] Result:` text). Expected values are read out of the file by the tests. Other layouts are
 * that file rewritten (documented at each test): the older XML form (each tool_use written into the
 * assistant text as Cline's prompts define it, `<tool><param>…</param></tool>`), the older split
 * results (header block + output block), a task folder with a ui_messages.json generated from the
 * history in the shape Cline's `saveClineMessages` writes (`api_req_started` with tokens and cost),
 * the Roo Code extension folder, and a result whose call was removed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clineLoader, parseXmlToolUses, searchReplaceBlocks } from '../../../src/core/formats/cline';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { acceptedBy, censusFile, rangeValue, sample, tmpDir } from '../samples';

const CLINE = 'cline-roo/api_conversation_history.json';
const history = (): any[] => JSON.parse(fs.readFileSync(censusFile(CLINE), 'utf8'));

async function one(file: string): Promise<Rollout> {
  const loaded = await loadFile(file);
  assert.equal(loaded.format, 'cline');
  return loaded.rollouts[0];
}

/** Writes `value` as `<new temp dir>/<...parts>` and returns the path. */
function write(value: unknown, ...parts: string[]): string {
  const file = path.join(tmpDir(), ...parts);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

const toolUses = (h: any[]): any[] => h.filter((m) => m.role === 'assistant' && Array.isArray(m.content)).flatMap((m) => m.content.filter((b: any) => b.type === 'tool_use'));

/** The test's own reading of SEARCH/REPLACE blocks. */
function blocks(diff: string): { oldText: string; newText: string }[] {
  return [...diff.matchAll(/^-{3,} SEARCH\n([\s\S]*?)\n?={3,}\n([\s\S]*?)\n?\+{3,} REPLACE$/gm)].map((m) => ({ oldText: m[1], newText: m[2] }));
}

describe('formats/cline on a real Cline task', () => {
  it('task, agent (Cline, from its ACT/PLAN MODE environment details), model, workdir, tokens and times per agent step', async () => {
    const h = history();
    const src = fs.readFileSync(censusFile(CLINE), 'utf8');
    const r = await one(censusFile(CLINE));
    assert.equal(r.agent.name, 'Cline');
    assert.equal(r.agent.model, h[1].modelInfo.modelId);
    assert.equal(r.task.instruction, /<task>\s*([\s\S]*?)\s*<\/task>/.exec(h[0].content[0].text)![1]);
    assert.equal(r.environment.workdir, /# Current Working Directory \(([^)]+)\)/.exec(h[0].content.find((b: any) => b.text.startsWith('<environment_details>')).text)![1]);
    const agents = r.steps.filter((s) => s.role === 'agent');
    const assistants = h.map((m, i) => [m, i] as const).filter(([m]) => m.role === 'assistant');
    assert.equal(agents.length, assistants.length);
    agents.forEach((s, k) => {
      const [m, i] = assistants[k];
      assert.equal(s.sourceId, i);
      assert.equal(s.timestamp, new Date(m.ts).toISOString());
      assert.deepEqual(s.tokens, m.metrics ? m.metrics.tokens : null);
      assert.deepEqual(rangeValue(src, s), m);
    });
    assert.equal((r.metadata.uiMessages as any).path, null);
    assert.match((r.metadata.uiMessages as any).note, /not found/);
  });

  it('execute_command → shell commands in order; exit codes read from the result text, marked text', async () => {
    const h = history();
    const r = await one(censusFile(CLINE));
    const want = toolUses(h).filter((b) => b.name === 'execute_command');
    const shell = r.steps.flatMap((s) => s.actions).filter((a) => a.kind === 'shell');
    assert.deepEqual(shell.map((a) => [a.command, a.callId]), want.map((b) => [b.input.command, b.id]));
    const results = h.filter((m) => m.role === 'user').flatMap((m) => m.content).filter((b: any) => b.type === 'text' && b.text.startsWith('[execute_command for '));
    const codes = results.map((b: any) => {
      const m = /Command executed successfully \(exit code (-?\d+)\)|Command failed with exit code (-?\d+)/.exec(b.text);
      return m ? Number(m[1] ?? m[2]) : null;
    });
    const got = shell.map((a) => r.steps.flatMap((s) => s.observations).find((o) => o.callId === a.callId)).filter((o) => o !== undefined);
    assert.equal(got.length, results.length);
    assert.deepEqual(got.map((o) => o!.exitCode), codes);
    assert.ok(codes.includes(0) && codes.includes(1) && codes.includes(255));
    assert.ok(got.every((o) => o!.exitCodeFrom === (o!.exitCode === null ? undefined : 'text')));
  });

  it('write_to_file → write edits, replace_in_file → the SEARCH/REPLACE blocks in order; attempt_completion → finish', async () => {
    const h = history();
    const r = await one(censusFile(CLINE));
    const actions = r.steps.flatMap((s) => s.actions);
    const writes = toolUses(h).filter((b) => b.name === 'write_to_file');
    assert.deepEqual(
      actions.filter((a) => a.tool === 'write_to_file').map((a) => a.edit),
      writes.map((b) => ({ op: 'write', path: b.input.absolutePath, content: b.input.content })),
    );
    const replaces = toolUses(h).filter((b) => b.name === 'replace_in_file');
    const got = actions.filter((a) => a.tool === 'replace_in_file');
    assert.equal(got.length, replaces.length);
    got.forEach((a, k) => {
      assert.equal(a.kind, 'file_edit');
      assert.equal(a.path, replaces[k].input.absolutePath);
      assert.deepEqual(a.edit, { op: 'replace', path: replaces[k].input.absolutePath, edits: blocks(replaces[k].input.diff).map((b) => ({ ...b, replaceAll: false })) });
    });
    assert.deepEqual(new Set(actions.filter((a) => a.kind === 'finish').map((a) => a.tool)), new Set(['attempt_completion']));
    // Results come back as text in the next message, one per call.
    const n = toolUses(h).length;
    const answered = actions.filter((a) => r.steps.some((s) => s.observations.some((o) => o.callId === a.callId)));
    assert.ok(answered.length > n * 0.9, `${answered.length} of ${n} calls answered`);
  });

  it('user turns: resumptions marked interrupted, feedback shown, scaffolding blocks left out of messages', async () => {
    const r = await one(censusFile(CLINE));
    const users = r.steps.filter((s) => s.role === 'user');
    assert.ok(users.filter((s) => s.event?.kind === 'interrupted').length >= 5);
    assert.ok(users.some((s) => s.message.startsWith('The user has provided feedback')));
    assert.ok(r.steps.every((s) => !s.message.includes('<environment_details>')));
    assert.ok((r.metadata.scaffoldingBlocks as number) > 200);
  });

  it('older XML tool tags in the assistant text (the same calls rewritten) give the same actions and observations', async () => {
    const h = history();
    const xml = h.map((m) => {
      if (m.role !== 'assistant') return m;
      const text = m.content
        .map((b: any) => {
          if (b.type !== 'tool_use') return b.text;
          const params = Object.entries(b.input).map(([k, v]) => `<${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</${k}>`);
          return `<${b.name}>\n${params.join('\n')}\n</${b.name}>`;
        })
        .join('\n\n');
      return { ...m, content: [{ type: 'text', text }] };
    });
    const native = await one(censusFile(CLINE));
    const r = await one(write(xml, 'task', 'api_conversation_history.json'));
    // Cline's parser trims parameter values: a written file's content compares trimmed.
    const edit = (e: unknown) => (e && (e as any).op === 'write' ? { ...(e as any), content: (e as any).content.trim() } : (e ?? null));
    const strip = (ro: Rollout) =>
      ro.steps.map((s) => [s.role, s.actions.map((a) => [a.kind, a.tool, a.command, edit(a.edit)]), s.observations.map((o) => [o.output, o.exitCode])]);
    assert.deepEqual(strip(r), strip(native));
  });

  it('older split results (header block, then the output block) read the same', async () => {
    const h = history();
    const split = h.map((m) => {
      if (m.role !== 'user' || !Array.isArray(m.content)) return m;
      return {
        ...m,
        content: m.content.flatMap((b: any) => {
          const head = b.type === 'text' ? /^(\[[^\n]*?\] Result:)\n([\s\S]*)$/.exec(b.text) : null;
          return head ? [{ type: 'text', text: head[1] }, { type: 'text', text: head[2] }] : [b];
        }),
      };
    });
    const native = await one(censusFile(CLINE));
    const r = await one(write(split, 'task', 'api_conversation_history.json'));
    assert.deepEqual(
      r.steps.map((s) => s.observations.map((o) => [o.callId, o.output, o.exitCode])),
      native.steps.map((s) => s.observations.map((o) => [o.callId, o.output, o.exitCode])),
    );
  });

  it('ui_messages.json beside it: per-step cost and the task; a Roo Code extension folder names Roo Code, the task id names the rollout', async () => {
    const h = history();
    const dir = path.join(tmpDir(), 'rooveterinaryinc.roo-cline', 'tasks', '1777073170000');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(censusFile(CLINE), path.join(dir, 'api_conversation_history.json'));
    const assistants = h.filter((m) => m.role === 'assistant');
    const ui = [
      { ts: h[0].ts, type: 'say', say: 'task', text: 'the task as typed' },
      ...assistants.map((m, k) => ({ ts: m.ts - 1000, type: 'say', say: 'api_req_started', text: JSON.stringify({ tokensIn: m.metrics.tokens.prompt, tokensOut: m.metrics.tokens.completion, cacheReads: 0, cost: (k + 1) / 1000 }) })),
    ];
    fs.writeFileSync(path.join(dir, 'ui_messages.json'), JSON.stringify(ui));
    const r = await one(path.join(dir, 'api_conversation_history.json'));
    assert.equal(r.agent.name, 'Roo Code');
    assert.equal(r.id, '1777073170000');
    const agents = r.steps.filter((s) => s.role === 'agent');
    assert.deepEqual(agents.map((s) => s.costUsd), assistants.map((_, k) => (k + 1) / 1000));
    assert.equal((r.metadata.uiMessages as any).apiRequests, assistants.length);
    // The history has its own <task>: it wins over the UI's.
    assert.notEqual(r.task.instruction, 'the task as typed');
    assert.equal(r.derived, undefined);
  });

  it('a result whose call is gone is a located warning and an environment step', async () => {
    const h = history();
    const k = h.findIndex((m) => m.role === 'assistant' && m.content.some((b: any) => b.type === 'tool_use' && b.name === 'execute_command'));
    h[k] = { ...h[k], content: h[k].content.filter((b: any) => b.type !== 'tool_use') };
    const file = write(h, 'task', 'api_conversation_history.json');
    const loaded = await loadFile(file);
    const issues = loaded.issues ?? [];
    assert.equal(issues.length, 1);
    assert.equal(issues[0].pointer, `/${k + 1}/content/0`);
    const env = loaded.rollouts[0].steps.find((s) => s.role === 'environment')!;
    assert.ok(env.observations[0].output.includes('Command executed successfully'));
  });

  it('detection: not OpenAI chat rows, not the hand-written third-party fixture', () => {
    const chat = sample('openai-chat/harbor-golden_terminus2_invalid-json.traces.json');
    assert.deepEqual(acceptedBy([clineLoader], chat, fs.readFileSync(chat, 'utf8')), []);
    const fixture = censusFile('cline-roo/cass-fixture_task1_api_conversation_history.json');
    assert.deepEqual(acceptedBy([clineLoader], fixture, fs.readFileSync(fixture, 'utf8')), []);
  });

  it('parsers: XML tool uses (content to its last </content>, a cut tool), SEARCH/REPLACE with Roo line hints', () => {
    const p = parseXmlToolUses('I will write it.\n<write_to_file>\n<path>a.html</path>\n<content>\n<p></content></p>\n</content>\n</write_to_file>\nthen <execute_command><command>ls</command>');
    assert.equal(p.text, 'I will write it.\n\nthen');
    assert.deepEqual(p.uses, [
      { name: 'write_to_file', params: { path: 'a.html', content: '<p></content></p>' } },
      { name: 'execute_command', params: { command: 'ls' } },
    ]);
    assert.deepEqual(searchReplaceBlocks('<<<<<<< SEARCH\n:start_line:3\n-------\nold\n=======\nnew\n>>>>>>> REPLACE'), [{ oldText: 'old', newText: 'new' }]);
    assert.throws(() => searchReplaceBlocks('------- SEARCH\nold\n'), /not closed/);
  });
});
