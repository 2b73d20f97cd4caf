/**
 * GitHub Copilot CLI events.jsonl (src/core/formats/copilotCli.ts) on the real session in
 * ../shared/format-census/copilot-cli/copilot.jsonl (Copilot CLI 1.0.34). Expected values are read out
 * of the file by the tests. Bad input and the sub-agent layout are that file's lines rewritten
 * (documented at each test): a cut last line, an event type the loader does not know, a result
 * without its call, and two of its tool runs moved into a sub-agent (`agentId`, `subagent.started`,
 * as Copilot CLI writes a `task` sub-agent's events into the parent's log).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copilotCliLoader } from '../../../src/core/formats/copilotCli';
import { clineLoader } from '../../../src/core/formats/cline';
import { sweTrajRowsLoader } from '../../../src/core/formats/sweTrajRows';
import { splitJsonl } from '../../../src/core/json';
import { loadFile, makeInput } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { acceptedBy, CENSUS_DIR, censusFile, rangeValue, SAMPLES_DIR, tmpDir } from '../samples';

const COPILOT = 'copilot-cli/copilot.jsonl';
const text = (): string => fs.readFileSync(censusFile(COPILOT), 'utf8');
const events = (): any[] => text().split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

async function one(file: string): Promise<Rollout> {
  const loaded = await loadFile(file);
  assert.equal(loaded.format, 'copilot-cli');
  return loaded.rollouts[0];
}

describe('formats/copilotCli on a real Copilot CLI session', () => {
  it('session facts: id, CLI version, model, cwd, git, shutdown status and usage', async () => {
    const ev = events();
    const start = ev[0].data;
    const shutdown = ev.find((e) => e.type === 'session.shutdown').data;
    const r = await one(censusFile(COPILOT));
    assert.equal(r.id, start.sessionId);
    assert.equal(r.schemaVersion, String(start.version));
    assert.deepEqual(r.agent, { name: 'GitHub Copilot CLI', version: start.copilotVersion, model: ev.find((e) => e.type === 'session.model_change').data.newModel });
    assert.equal(r.environment.workdir, start.context.cwd);
    assert.equal((r.metadata.git as any).branch, start.context.branch);
    assert.equal(r.outcome.status, shutdown.shutdownType);
    assert.deepEqual((r.metadata.shutdown as any).modelMetrics, shutdown.modelMetrics);
    assert.deepEqual(r.metadata.taskComplete, ev.find((e) => e.type === 'session.task_complete').data);
    assert.equal(r.task.instruction, ev.find((e) => e.type === 'user.message').data.content);
  });

  it('one agent step per assistant.message with its tool requests as actions, in order; results joined by toolCallId', async () => {
    const ev = events();
    const src = text();
    const r = await one(censusFile(COPILOT));
    const messages = ev.filter((e) => e.type === 'assistant.message');
    const fromMessages = r.steps.filter((s) => s.role === 'agent' && messages.some((m) => m.data.messageId === s.sourceId));
    assert.equal(fromMessages.length, messages.length);
    fromMessages.forEach((s, k) => {
      const m = messages[k].data;
      assert.equal(s.sourceId, m.messageId);
      assert.equal(s.message, m.content);
      assert.equal(s.reasoning, m.reasoningText || null);
      assert.equal(s.tokens?.completion ?? null, m.outputTokens ?? null);
      assert.deepEqual(s.actions.map((a) => [a.tool, a.callId]), m.toolRequests.map((t: any) => [t.name, t.toolCallId]));
      assert.deepEqual(rangeValue(src, s), messages[k]);
    });
    // Every result lands on its call: output = result.content.
    const completes = ev.filter((e) => e.type === 'tool.execution_complete');
    const obs = r.steps.flatMap((s) => s.observations);
    assert.equal(obs.length, completes.length);
    for (const c of completes) {
      const o = obs.find((x) => x.callId === c.data.toolCallId)!;
      assert.equal(o.output, c.data.result.content);
      assert.equal(o.isError, c.data.success ? undefined : true);
    }
  });

  it('bash → shell commands in order with the exit code of "<exited with exit code N>" (read from text); task_complete → finish', async () => {
    const ev = events();
    const r = await one(censusFile(COPILOT));
    const bash = ev.filter((e) => e.type === 'assistant.message').flatMap((e) => e.data.toolRequests).filter((t: any) => t.name === 'bash');
    const shell = r.steps.flatMap((s) => s.actions).filter((a) => a.kind === 'shell');
    assert.deepEqual(shell.map((a) => a.command), bash.map((t: any) => t.arguments.command));
    assert.ok(shell.length >= 2);
    for (const a of shell) {
      const o = r.steps.flatMap((s) => s.observations).find((x) => x.callId === a.callId)!;
      const m = /<exited with exit code (-?\d+)>/.exec(o.output)!;
      assert.deepEqual([o.exitCode, o.exitCodeFrom], [Number(m[1]), 'text']);
    }
    // Other tools carry no exit code.
    assert.ok(r.steps.flatMap((s) => s.actions).filter((a) => a.kind !== 'shell').every((a) => r.steps.flatMap((s) => s.observations).find((o) => o.callId === a.callId)?.exitCode == null));
    const finish = r.steps.flatMap((s) => s.actions).filter((a) => a.kind === 'finish');
    assert.deepEqual(finish.map((a) => a.tool), ['task_complete']);
  });

  it('tool runs without a request (the glob and web_fetch runs of this log) are steps of their own; notices and system prompts show as such', async () => {
    const ev = events();
    const r = await one(censusFile(COPILOT));
    const requested = new Set(ev.filter((e) => e.type === 'assistant.message').flatMap((e) => e.data.toolRequests.map((t: any) => t.toolCallId)));
    const runs = ev.filter((e) => e.type === 'tool.execution_start' && !requested.has(e.data.toolCallId));
    assert.deepEqual(runs.map((e) => e.data.toolName), ['glob', 'web_fetch']);
    for (const run of runs) {
      const s = r.steps.find((x) => x.sourceId === run.id)!;
      assert.deepEqual(s.actions.map((a) => [a.tool, a.callId, a.arguments]), [[run.data.toolName, run.data.toolCallId, run.data.arguments]]);
    }
    assert.equal(r.metadata.unrequestedToolRuns, 2);
    const notices = r.steps.filter((s) => s.event?.kind === 'notice').map((s) => s.event!.label);
    assert.deepEqual(notices, ['mode: interactive → autopilot', `info: ${ev.find((e) => e.type === 'session.info').data.message}`]);
    assert.equal(r.steps.filter((s) => s.role === 'system' && !s.event).length, ev.filter((e) => e.type === 'system.message').length);
    assert.equal((r.metadata.skippedEvents as any)['assistant.turn_start'], ev.filter((e) => e.type === 'assistant.turn_start').length);
    // The autopilot nudge (empty content) shows its transformed text.
    const nudge = ev.filter((e) => e.type === 'user.message')[1];
    assert.equal(r.steps.find((s) => s.sourceId === nudge.id)!.message, nudge.data.transformedContent);
  });

  it('the record stream fed a line at a time gives load()\'s rollout; changedFrom points at the step a result joined', async () => {
    const file = censusFile(COPILOT);
    const lines = splitJsonl(text());
    const input = makeInput(file, text(), nodeFiles);
    const s = copilotCliLoader.stream!({ path: file, files: nodeFiles, parseLine: input.parseLine });
    const ev = events();
    let last: Rollout | null = null;
    lines.forEach((l, i) => {
      s.push([l]);
      const [snap] = s.snapshot();
      if (ev[i].type === 'tool.execution_complete') {
        const target = snap.rollout.steps.findIndex((st) => st.observations.some((o) => o.callId === ev[i].data.toolCallId));
        assert.equal(snap.changedFrom, target, `line ${i + 1}`);
      }
      last = snap.rollout;
    });
    s.end!();
    const [again] = s.snapshot();
    assert.equal(again.changedFrom, again.rollout.steps.length);
    const loaded = await one(file);
    assert.deepEqual(last!.steps, loaded.steps);
    assert.deepEqual(s.issues, []);
  });

  it('bad input: a cut last line, an unknown event type and a result without its call are located warnings; the rest is shown', async () => {
    const src = text().trimEnd().split('\n');
    const unknown = JSON.stringify({ type: 'session.future_event', data: { x: 1 }, id: 'u1', timestamp: '2026-04-23T17:12:50.000Z', parentId: null });
    const orphan = JSON.stringify({ type: 'tool.execution_complete', data: { toolCallId: 'toolu_nope', success: false, error: { message: 'boom' } }, id: 'o1', timestamp: '2026-04-23T17:12:51.000Z', parentId: null });
    const lastLine = src[src.length - 1];
    const lines = [...src.slice(0, -1), unknown, orphan, lastLine.slice(0, Math.floor(lastLine.length / 2))];
    const file = path.join(tmpDir(), 'events.jsonl');
    fs.writeFileSync(file, lines.join('\n'));
    const loaded = await loadFile(file);
    const r = loaded.rollouts[0];
    const issues = loaded.issues ?? [];
    assert.deepEqual(issues.map((i) => i.line), [src.length, src.length + 1, src.length + 2]);
    assert.match(issues[0].expected, /event type/);
    assert.match(issues[1].found, /toolu_nope/);
    assert.match(issues[2].found, /cut off/);
    const raw = r.steps.find((s) => s.event?.kind === 'unknown_record')!;
    assert.equal(raw.message, unknown);
    const env = r.steps.find((s) => s.role === 'environment')!;
    assert.deepEqual([env.observations[0].output, env.observations[0].isError], ['boom', true]);
    // Everything before the cut line is there (the shutdown record was the cut one).
    assert.equal(r.steps.filter((s) => s.role === 'agent').length, (await one(censusFile(COPILOT))).steps.filter((s) => s.role === 'agent').length);
    assert.equal(r.outcome.status, null);
    // The stream fed the same lines (the cut one pushed as is at the end) gives the same rollouts.
    const fileText = fs.readFileSync(file, 'utf8');
    const st = copilotCliLoader.stream!({ path: file, files: nodeFiles, parseLine: makeInput(file, fileText, nodeFiles).parseLine });
    st.push(splitJsonl(fileText));
    st.end!();
    assert.deepEqual(st.snapshot().map((x) => x.rollout), loaded.rollouts);
    // The same issues, but loadFile marks the cut last line of a session as a warning that says so.
    assert.deepEqual(st.issues.map((i) => [i.line, i.expected]), issues.map((i) => [i.line, i.expected]));
    assert.equal(issues[2].severity, 'warning');
    assert.match(issues[2].found, /cut off|last line is incomplete/);
  });

  it('sub-agents: events with an agentId form a child rollout linked from the step whose task call started it', async () => {
    // The log's glob and web_fetch runs (lines 34–37) rewritten as a `task` sub-agent's runs.
    const ev = events();
    const msg = ev.findIndex((e) => e.type === 'assistant.message' && e.data.toolRequests.some((t: any) => t.name === 'bash'));
    const taskCall = { toolCallId: 'toolu_task_1', name: 'task', arguments: { prompt: 'find the rust files', agent_type: 'explore' }, type: 'function' };
    ev[msg].data.toolRequests.push(taskCall);
    const started = { type: 'subagent.started', data: { toolCallId: taskCall.toolCallId, agentName: 'explore', agentDisplayName: 'Explore' }, agentId: taskCall.toolCallId, id: 'sa1', timestamp: ev[msg].timestamp, parentId: ev[msg].id };
    const runs = ev.map((e, i) => [e, i] as const).filter(([e]) => (e.type === 'tool.execution_start' || e.type === 'tool.execution_complete') && /Glob|WebFetch/.test(e.data.toolCallId));
    for (const [e] of runs) e.agentId = taskCall.toolCallId;
    const out = [...ev.slice(0, runs[0][1]), started, ...ev.slice(runs[0][1])];
    const file = path.join(tmpDir(), 'events.jsonl');
    fs.writeFileSync(file, out.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const loaded = await loadFile(file);
    assert.equal(loaded.rollouts.length, 2);
    const [main, sub] = loaded.rollouts;
    assert.equal(sub.id, `${main.id}/${taskCall.toolCallId}`);
    assert.deepEqual(sub.steps.flatMap((s) => s.actions).map((a) => a.tool), ['glob', 'web_fetch']);
    const parent = main.steps.find((s) => s.actions.some((a) => a.callId === taskCall.toolCallId))!;
    assert.deepEqual(parent.links, [{ relation: 'subagent', label: 'Explore', path: null, rolloutId: sub.id, callId: taskCall.toolCallId, stepIndex: 0 }]);
    assert.deepEqual(sub.links?.map((l) => [l.relation, l.rolloutId, l.stepIndex]), [['parent', main.id, parent.index]]);
    assert.ok(!main.steps.flatMap((s) => s.actions).some((a) => a.tool === 'glob'));
  });

  it('detection: the Copilot, Cline and SWE row loaders each take only their own census files', () => {
    const want: Record<string, string> = {
      'copilot-cli/copilot.jsonl': 'copilot-cli',
      'cline-roo/api_conversation_history.json': 'cline',
      'swe-traj-datasets/nebius_SWE-agent-trajectories.sample_raw.json': 'swe-traj-rows',
    };
    let checked = 0;
    for (const dir of fs.readdirSync(CENSUS_DIR)) {
      const d = path.join(CENSUS_DIR, dir);
      if (!fs.statSync(d).isDirectory()) continue;
      for (const name of fs.readdirSync(d).filter((n) => /\.jsonl?$/.test(n))) {
        const rel = `${dir}/${name}`;
        let got: string[];
        try {
          got = acceptedBy([copilotCliLoader, clineLoader, sweTrajRowsLoader], path.join(d, name), fs.readFileSync(path.join(d, name), 'utf8'));
        } catch {
          continue;
        }
        assert.deepEqual(got, want[rel] ? [want[rel]] : [], rel);
        checked++;
      }
    }
    assert.ok(checked >= 15, `${checked} census files`);
    // None of them takes any of the other formats' samples.
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    let samples = 0;
    for (const f of walk(SAMPLES_DIR).filter((p) => /\.(json|jsonl|traj)$/.test(p))) {
      let got: string[];
      try {
        got = acceptedBy([copilotCliLoader, clineLoader, sweTrajRowsLoader], f, fs.readFileSync(f, 'utf8'));
      } catch {
        continue;
      }
      assert.deepEqual(got, [], f);
      samples++;
    }
    assert.ok(samples >= 15, `${samples} samples`);
  });
});
