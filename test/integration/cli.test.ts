/**
 * The built CLI (dist/cli.js) as a user runs it: child processes, real samples, exit codes.
 * Needs `npm run build` first (npm test builds before it runs mocha).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { censusFile, REPO_ROOT, sample, sampleJson, tmpDir } from '../unit/samples';
import { writeZip } from '../unit/zipWriter';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

describe('CLI (dist/cli.js)', function () {
  // Each test starts CLI processes one after another: on 2 busy shared cores one start can take
  // seconds, so the test gets the time a loaded machine needs (each process has its own timeout).
  this.timeout(180_000);
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  });

  it('show --json prints one document with the file\'s real steps and commands', () => {
    const r = cli('show', sample(ATIF), '--json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    const raw = sampleJson(ATIF);
    assert.equal(doc.format, 'atif');
    assert.equal(doc.schemaVersion, raw.schema_version);
    assert.equal(doc.rollouts.length, 1);
    const ro = doc.rollouts[0];
    assert.equal(ro.steps.length, raw.steps.length);
    assert.deepEqual(Object.keys(ro.outcome).sort(), ['resolved', 'reward', 'status']);
    assert.equal(ro.agent.name, raw.agent?.name ?? null);
    const firstKeys = raw.steps.flatMap((s: any) => s.tool_calls ?? []).find((t: any) => t.arguments?.keystrokes)?.arguments.keystrokes;
    assert.ok(firstKeys, 'sample has keystrokes');
    const commands = ro.steps.flatMap((s: any) => s.actions.map((a: any) => a.command));
    assert.ok(commands.includes(firstKeys), `commands include ${JSON.stringify(firstKeys)}`);
    for (const s of ro.steps) for (const o of s.observations) assert.ok(o.exitCode === null || Number.isInteger(o.exitCode));
  });

  it('show of a file at the streaming threshold (TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES) prints what a full load prints, and a warning saying how it was read', () => {
    const streamed = (...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES: '0' } });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    for (const [file, how] of [
      [sample(ATIF), /^warning: .*read 1000 steps at a time/m],
      [sample('openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl'), /^warning: .*read one row at a time/m],
    ] as const) {
      const whole = cli('show', file);
      const s = streamed('show', file);
      assert.equal(s.code, whole.code, s.stderr);
      assert.equal(s.stdout, whole.stdout);
      assert.match(s.stderr, how);
      const doc = JSON.parse(streamed('show', file, '--json').stdout);
      assert.deepEqual({ ...doc, warnings: [] }, { ...JSON.parse(cli('show', file, '--json').stdout), warnings: [] });
    }
  });

  it('show and validate: warnings (a missing subagent transcript, outputs whose calls the file lacks) are said; only validate fails on them, unless --warnings-ok', () => {
    // The census Claude Code session without its subagents folder; the Codex 0.39 file whose last lines answer calls it does not hold.
    const claude = cli('show', censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl'), '--json');
    assert.equal(claude.code, 0, claude.stderr);
    const doc = JSON.parse(claude.stdout);
    assert.deepEqual(doc.errors, []);
    assert.equal(doc.warnings.length, 1);
    assert.match(doc.warnings[0].message, /:1474:1: expected the transcript of subagent a881341 .* found no such file/);
    assert.match(claude.stderr, /^warning: .*subagent a881341/m);
    // validate fails on warnings unless told they are fine (--warnings-ok), and says each.
    const strict = cli('validate', censusFile('codex-cli/vibecodingtracker_codex.jsonl'));
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(strict.stdout, /^warning .*vibecodingtracker_codex\.jsonl \(codex-cli.*, 2 warnings\)/m);
    assert.match(strict.stderr, /2 warning\(s\); exit 1 \(pass --warnings-ok/);
    const codex = cli('validate', censusFile('codex-cli/vibecodingtracker_codex.jsonl'), '--warnings-ok');
    assert.equal(codex.code, 0, codex.stderr);
    assert.match(codex.stdout, /^warning .*vibecodingtracker_codex\.jsonl \(codex-cli/m);
    assert.deepEqual([...codex.stderr.matchAll(/^warning: .*:(\d+):\d+ at \/payload\/call_id/gm)].map((m) => m[1]), ['109', '110']);
  });

  it('show --json on a Claude Code session folder: the facts of the real 2.1.39 session and its subagent link', () => {
    const sid = '258c7280-ae70-4798-800f-63464d01a85d';
    const dir = tmpDir('ti-cli-claude-');
    const main = path.join(dir, `${sid}.jsonl`);
    const sub = path.join(dir, sid, 'subagents', 'agent-a881341.jsonl');
    fs.copyFileSync(censusFile(`claude-code/${sid}.jsonl`), main);
    fs.mkdirSync(path.dirname(sub), { recursive: true });
    fs.copyFileSync(censusFile('claude-code/258c7280_subagents_agent-a881341.jsonl'), sub);
    const r = cli('show', main, '--json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.format, 'claude-code');
    assert.deepEqual(doc.errors, []);
    const ro = doc.rollouts[0];
    assert.equal(ro.id, sid);
    assert.deepEqual(ro.agent, { name: 'claude-code', version: '2.1.39', model: 'claude-opus-4-6' });
    assert.equal(ro.workdir, '/home/USER/projects/spotter-worktrees/spotter-gqc');
    const bash = fs
      .readFileSync(main, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l))
      .flatMap((rec) => (rec.type === 'assistant' ? rec.message.content : []))
      .filter((b: any) => b.type === 'tool_use' && b.name === 'Bash')
      .map((b: any) => b.input.command);
    const steps = ro.steps as any[];
    assert.deepEqual(steps.flatMap((s) => s.actions.filter((a: any) => a.kind === 'shell').map((a: any) => a.command)), bash);
    assert.deepEqual(
      steps.flatMap((s) => s.observations.filter((o: any) => o.exitCode !== null).map((o: any) => [o.exitCode, o.exitCodeFrom])),
      [[128, 'text'], [1, 'text'], [2, 'text'], [2, 'text'], [2, 'text']],
    );
    assert.ok(steps.some((s) => s.event?.kind === 'compaction' && /167094 tokens before/.test(s.event.label)));
    const links = steps.flatMap((s) => s.links ?? []);
    assert.deepEqual(links.map((l: any) => [l.relation, l.path, l.rolloutId, l.missing]), [['subagent', sub, `${sid}/agent-a881341`, null]]);
    const edit = steps.flatMap((s) => s.actions).find((a: any) => a.tool === 'Edit');
    assert.equal(edit.kind, 'file_edit');
    assert.equal(edit.edit.op, 'replace');
  });

  it('show prints a human-readable step list', () => {
    const r = cli('show', sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[mini-swe-agent mini-swe-agent-1\]/);
    assert.match(r.stdout, / exit 0/);
  });

  it('validate exits 0 on every real sample folder of the foundation formats', () => {
    for (const dir of ['atif', 'swe-agent', 'mini-swe-agent', 'openhands', 'harbor-trial-result']) {
      const r = cli('validate', sample(dir));
      assert.equal(r.code, 0, `${dir}: ${r.stderr}`);
      assert.match(r.stdout, /^ok /m);
    }
  });

  it('validate exits 1 with a located error for a broken file', () => {
    const dir = tmpDir('ti-cli-');
    const raw = sampleJson(ATIF);
    raw.steps[1].source = 'robot';
    const f = path.join(dir, 'trajectory.json');
    fs.writeFileSync(f, JSON.stringify(raw, null, 2));
    const r = cli('validate', f);
    assert.equal(r.code, 1);
    const line = fs.readFileSync(f, 'utf8').split('\n').findIndex((l) => l.includes('"robot"')) + 1;
    assert.ok(r.stderr.includes(`${f}:${line}:`), r.stderr);
    assert.match(r.stderr, /\/steps\/1\/source/);
    assert.match(r.stderr, /found string "robot"/);
  });

  it('validate lists the formats tried for an unknown file', () => {
    const dir = tmpDir('ti-cli-');
    const f = path.join(dir, 'x.traj');
    fs.writeFileSync(f, '{"not": "a rollout"}');
    const r = cli('validate', f);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /No rollout format matches/);
    assert.match(r.stderr, /SWE-agent/i);
  });

  it('validate exits 1 and names the line of a bad row in the middle of an output.jsonl; show --json lists it', () => {
    const dir = tmpDir('ti-cli-');
    const history = sampleJson('openhands/tests_runtime_trajs_basic.json');
    const rows = [0, 1, 2].map((i) => JSON.stringify({ instance_id: `inst-${i}`, instruction: 'x', history }));
    rows[1] = rows[1].slice(0, rows[1].indexOf('},') + 1);
    const f = path.join(dir, 'output.jsonl');
    fs.writeFileSync(f, rows.join('\n') + '\n');
    const v = cli('validate', f);
    assert.equal(v.code, 1, v.stdout);
    assert.ok(v.stderr.includes(`${f}:2:${rows[1].length + 1} at /history/`), v.stderr);
    assert.match(v.stderr, /expected valid JSON: .*found the end of the line/);
    assert.doesNotMatch(v.stdout, /^ok /m);
    const s = cli('show', f, '--json');
    assert.equal(s.code, 1);
    const doc = JSON.parse(s.stdout);
    assert.deepEqual(doc.rollouts.map((r: any) => r.id), ['inst-0', 'inst-2']);
    assert.equal(doc.errors.length, 1);
    assert.equal(doc.errors[0].path, f);
    assert.ok(doc.errors[0].message.includes(`${f}:2:`), doc.errors[0].message);
  });

  it('show prints control characters of a rollout as escapes, not raw to the terminal', () => {
    const dir = tmpDir('ti-cli-');
    const raw = sampleJson(ATIF);
    raw.steps[1].message = 'hi \u001b]0;PWNED\u0007\u001b[2J\rdone';
    delete raw.steps[1].tool_calls;
    const f = path.join(dir, 'trajectory.json');
    fs.writeFileSync(f, JSON.stringify(raw));
    const r = cli('show', f);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/);
    assert.ok(r.stdout.includes('hi \\x1b]0;PWNED\\x07\\x1b[2J done'), r.stdout);
  });

  it('exits with its own code, not an EPIPE crash, when the reader of stdout goes away', async () => {
    const dir = tmpDir('ti-cli-');
    const raw = sampleJson(ATIF);
    raw.steps = Array.from({ length: 3000 }, (_, i) => ({ ...raw.steps[1], step_id: i + 1 }));
    const f = path.join(dir, 'trajectory.json');
    fs.writeFileSync(f, JSON.stringify(raw));
    // Like `show --json … | head -c 1`: the pipe closes after the first chunk while the CLI still writes.
    const child = spawn(process.execPath, [CLI, 'show', '--json', f], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.doesNotMatch(stderr, /EPIPE|Unhandled/);
    assert.equal(code, 0, stderr);
  });

  it('shows and validates a Harbor job result alone (census): its stats and the trial it names, never "No rollout format matches"', () => {
    const job = path.resolve(path.dirname(sample('atif')), '..', 'format-census', 'harbor-job', '2026-09-30__08-59-24', 'result.json');
    const raw = JSON.parse(fs.readFileSync(job, 'utf8'));
    const show = cli('show', job);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^Harbor job 2026-09-30__08-59-24  \\[harbor-job\\]  id ${raw.id}$`, 'm'));
    assert.match(show.stdout, /^  1 trial: 1 completed, 1 errored, 0 running, 0 pending, 0 cancelled, 0 retries$/m);
    assert.match(show.stdout, /^  eval claude-code__gpt-5\.6__adhoc · 1 trial · 1 error · mean 0$/m);
    assert.match(show.stdout, /^    NonZeroAgentExitCodeError: 1 trial \(check-brickmake-rule-semantics-r__xwL2kAp\)$/m);
    assert.match(show.stdout, /^  trial check-brickmake-rule-semantics-r__xwL2kAp: reward 0 · NonZeroAgentExitCodeError · folder not here$/m);
    const val = cli('validate', job);
    assert.equal(val.code, 0, val.stderr);
    assert.match(val.stdout, /^ok .*result\.json \(harbor-job: job result, 1 trial\(s\) named, 1 without their folder here\)$/m);
    const doc = JSON.parse(cli('show', job, '--json').stdout);
    assert.equal(doc.format, 'harbor-job');
    assert.deepEqual(doc.files[0].job.evals[0].exceptions, [{ type: 'NonZeroAgentExitCodeError', trials: ['check-brickmake-rule-semantics-r__xwL2kAp'] }]);
    assert.deepEqual(doc.rollouts.map((r: any) => [r.id, r.outcome.reward, r.outcome.status]), [['check-brickmake-rule-semantics-r__xwL2kAp', 0, 'NonZeroAgentExitCodeError']]);
  });

  it('exits 2 with usage on bad arguments', () => {
    assert.equal(cli().code, 2);
    assert.equal(cli('frobnicate', 'x').code, 2);
    assert.equal(cli('show', 'x', '--bogus').code, 2);
  });

  it('validate on a broken Harbor trial: a result.json not joined is a warning line and exit 1, exit 0 with --warnings-ok; a folder named agent/trajectory.json fails', () => {
    const job = tmpDir('ti-cli-harbor-');
    const result = fs.readFileSync(sample('harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json'), 'utf8');
    const trial = path.join(job, 't1');
    fs.mkdirSync(path.join(trial, 'agent'), { recursive: true });
    fs.copyFileSync(sample(ATIF), path.join(trial, 'agent', 'trajectory.json'));
    fs.writeFileSync(path.join(trial, 'result.json'), result.slice(0, 200));
    const strict = cli('validate', job);
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(strict.stdout, /^warning .*t1\/agent\/trajectory\.json \(atif .*1 warning\)/m);
    assert.match(strict.stderr, /^warning: .*trial result .*t1\/result\.json was not joined/m);
    const ok = cli('validate', job, '--warnings-ok');
    assert.equal(ok.code, 0, ok.stderr);
    const t2 = path.join(job, 't2');
    fs.mkdirSync(path.join(t2, 'agent', 'trajectory.json'), { recursive: true });
    fs.writeFileSync(path.join(t2, 'result.json'), result);
    const dir = cli('validate', job, '--warnings-ok');
    assert.equal(dir.code, 1, dir.stdout);
    assert.match(dir.stderr, /t2\/agent\/trajectory\.json: expected a rollout file, found a folder/);
    assert.match(dir.stdout, /t2\/result\.json/);
  });

  it('--max-inflated-mib sets the inflate budget of an archive: past it the load fails saying the budget; a bad value is a usage error', () => {
    const file = path.join(tmpDir(), 'big.eval');
    fs.writeFileSync(file, writeZip([{ name: 'header.json', data: Buffer.alloc(3 * 1024 * 1024, 0x20) }], 8));
    const low = cli('validate', '--max-inflated-mib', '2', file);
    assert.equal(low.code, 1);
    assert.match(low.stderr + low.stdout, /at most 2097152 are inflated per file/);
    const high = cli('validate', `--max-inflated-mib=64`, file);
    assert.equal(high.code, 1);
    assert.doesNotMatch(high.stderr + high.stdout, /inflated per file/);
    for (const bad of ['0', 'x', '1.5']) assert.equal(cli('show', '--max-inflated-mib', bad, file).code, 2, bad);
    assert.equal(cli('show', file, '--max-inflated-mib').code, 2);
  });
});
