/**
 * Terminal-Bench 1 loader tests on the real samples (../shared/samples/tb1: two trial folders from
 * laude-institute/terminal-bench-leaderboard, a run-level BenchmarkResults, a run_metadata.json).
 * Expected values are read out of the files by the test (commands.txt lines, cast events, results).
 * Run folders with trial folders, Terminus-style agent logs and broken inputs are built from the
 * samples in temp folders.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../../../src/core/errors';
import { keysText, parseCommandsTxt, parsePythonKeys } from '../../../src/core/formats/tb1Commands';
import { tb1RunLoader } from '../../../src/core/formats/tb1Run';
import { tb1TrialLoader } from '../../../src/core/formats/tb1Trial';
import { loadFile, loadPath } from '../../../src/core/load';
import { Rollout } from '../../../src/core/model';
import { sample, sampleJson, tmpDir, position } from '../samples';

const HELLO = 'tb1/orchestrator_hello-world.1-of-5';
const LCB = 'tb1/lcbpro-1983a_with-agent-logs';
const GOOSE = 'tb1/run-level_goose_claude-4-sonnet/2025-08-25__12-29-38__results.json';
const RUN_META = 'tb1/run-level_orchestrator_claude-4-sonnet/run_metadata.json';

type Ev = [number, string, string];

function castEvents(rel: string): Ev[] {
  return fs
    .readFileSync(sample(rel), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as Ev);
}

function commandLines(rel: string): string[] {
  return fs.readFileSync(sample(rel), 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** Output of the `o` events from event index `from` up to (not including) `to`. */
function outputBetween(evs: Ev[], from: number, to: number): string {
  return evs.slice(from, to).filter((e) => e[1] === 'o').map((e) => e[2]).join('');
}

/** Copies a sample trial folder to `<dest>`. */
function copyTrial(rel: string, dest: string): string {
  fs.cpSync(sample(rel), dest, { recursive: true });
  return dest;
}

describe('formats/tb1', () => {
  describe('commands.txt (Python literals)', () => {
    it('parses the real lines: lists in single quotes, a string holding single quotes in double quotes', () => {
      const text = fs.readFileSync(sample(`${LCB}/commands.txt`), 'utf8');
      const cmds = parseCommandsTxt('/c.txt', text);
      assert.equal(cmds.length, commandLines(`${LCB}/commands.txt`).length);
      assert.deepEqual(cmds[0].keys, ['asciinema rec --stdin /logs/agent.cast', 'Enter']);
      assert.deepEqual(cmds[5].keys, ['bash ', '/tests/run-tests.sh', 'Enter']);
      assert.deepEqual(cmds[6].keys, ['C-d']);
      const line3 = text.split('\n')[2];
      assert.ok(line3.startsWith('["echo \''));
      // No escapes in this line: the value is the text between the outer double quotes.
      assert.deepEqual(cmds[2].keys, [line3.slice(2, line3.indexOf('", \'Enter\']')), 'Enter']);
      assert.deepEqual(cmds[2].range, { start: text.indexOf(line3), end: text.indexOf(line3) + line3.length });
      assert.equal(cmds[2].line, 3);
    });

    it('reads Python string escapes and bare string lines as repr writes them', () => {
      assert.deepEqual(parsePythonKeys(String.raw`'it\'s', "a\\b\n", '\x1b[A', '\u00e9\U0001f600\t\0'`), {
        ok: false,
        at: 7,
        expected: 'the end of the line',
      });
      assert.deepEqual(parsePythonKeys(String.raw`['it\'s', "a\\b\n", '\x1b[A', '\u00e9\U0001f600\t\0', '\d']`), {
        ok: true,
        value: ["it's", 'a\\b\n', '\x1b[A', 'é😀\t\0', '\\d'],
      });
      assert.deepEqual(parsePythonKeys(String.raw`'cat > f << EOF\nhi\nEOF\n'`), { ok: true, value: 'cat > f << EOF\nhi\nEOF\n' });
      assert.deepEqual(parsePythonKeys('[]'), { ok: true, value: [] });
    });

    it('writes keys as one command: Enter as a newline, other keys by name', () => {
      assert.equal(keysText(['bash ', '/tests/run-tests.sh', 'Enter']), 'bash /tests/run-tests.sh\n');
      assert.equal(keysText(['C-d']), 'C-d');
      assert.equal(keysText(['python', 'Enter', 'C-c', 'exit()', 'Enter']), 'python\nC-c exit()\n');
    });

    it('a malformed line is a located error in commands.txt (line and column)', async () => {
      const dir = copyTrial(LCB, path.join(tmpDir(), 'trial'));
      const file = path.join(dir, 'commands.txt');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines[2] = lines[2].slice(0, 40); // cut inside the string: no closing quote
      fs.writeFileSync(file, lines.join('\n'));
      await assert.rejects(loadFile(path.join(dir, 'results.json')), (e: unknown) => {
        assert.ok(e instanceof RolloutLoadError);
        assert.equal(e.issues[0].file, file);
        assert.equal(e.issues[0].line, 3);
        assert.equal(e.issues[0].column, 41);
        assert.equal(e.issues[0].expected, 'a closing "');
        assert.equal(e.issues[0].found, 'end of line');
        return true;
      });
    });
  });

  describe('trial folder: orchestrator hello-world (agent without tmux commands)', () => {
    const results = sampleJson(`${HELLO}/results.json`);
    const evs = castEvents(`${HELLO}/sessions/agent.cast`);
    let ro: Rollout;
    before(async () => {
      const loaded = await loadFile(sample(`${HELLO}/results.json`));
      assert.equal(loaded.format, 'tb1-trial');
      assert.equal(loaded.rollouts.length, 1);
      ro = loaded.rollouts[0];
    });

    it('validates; task, outcome and parser results come from results.json', () => {
      Rollout.parse(ro);
      assert.equal(ro.id, results.uuid);
      assert.equal(ro.task.id, 'hello-world');
      assert.equal(ro.task.instruction, results.instruction);
      assert.equal(ro.outcome.resolved, results.is_resolved);
      assert.equal(ro.outcome.status, results.failure_mode);
      assert.equal(ro.outcome.reward, null);
      assert.deepEqual(ro.outcome.rewards, { test_hello_file_exists: 1, test_hello_file_content: 1 });
      assert.deepEqual(ro.metadata.parserResults, results.parser_results);
      assert.equal(ro.metadata.totalInputTokens, results.total_input_tokens);
      assert.equal(ro.groupId, 'hello-world');
      assert.deepEqual(ro.agent, { name: null, version: null, model: null }); // no run_metadata.json two levels up
    });

    it('one keystrokes step per commands.txt line, with its line as range', () => {
      const lines = commandLines(`${HELLO}/commands.txt`);
      const text = fs.readFileSync(sample(`${HELLO}/commands.txt`), 'utf8');
      assert.equal(ro.steps.length, lines.length);
      ro.steps.forEach((s, k) => {
        assert.equal(s.sourceId, k + 1);
        assert.equal(s.file, sample(`${HELLO}/commands.txt`));
        assert.equal(text.slice(s.range!.start, s.range!.end), lines[k]);
        assert.equal(s.actions[0].kind, 'keystrokes');
      });
      assert.equal(ro.steps[0].actions[0].command, 'asciinema rec --stdin /logs/agent.cast\n');
      assert.equal(ro.steps[4].actions[0].command, 'bash /tests/run-tests.sh\n');
      assert.deepEqual(ro.steps[4].actions[0].arguments, { keys: ['bash ', '/tests/run-tests.sh', 'Enter'] });
      // Every line is the harness's own (recording, clear, tests, stop): the orchestrator typed nothing.
      assert.deepEqual(ro.steps.map((s) => s.role), lines.map(() => 'system'));
    });

    it('steps of the agent session get the cast times of their input events and the output up to the next', () => {
      const inputs = evs.map((e, k) => [e, k] as const).filter(([e]) => e[1] === 'i');
      assert.equal(inputs.length, 2);
      assert.equal(inputs[0][0][2], 'clear\r');
      assert.equal(inputs[1][0][2], '\u0004');
      const clear = ro.steps[1];
      const stop = ro.steps.find((s) => s.actions[0].command === 'C-d' && s.castTime !== null)!;
      assert.equal(clear.castTime, inputs[0][0][0]);
      assert.equal(stop.castTime, inputs[1][0][0]);
      assert.equal(clear.observations[0].output, outputBetween(evs, inputs[0][1], inputs[1][1]));
      assert.equal(stop.observations[0].output, outputBetween(evs, inputs[1][1], evs.length));
      assert.equal(clear.observations[0].exitCode, null);
      // The recording's start: castTime 0 and the first prompt.
      assert.equal(ro.steps[0].castTime, 0);
      assert.equal(ro.steps[0].observations[0].output, outputBetween(evs, 0, inputs[0][1]));
      // The tests session is not in agent.cast.
      assert.equal(ro.steps[4].castTime, null);
      assert.deepEqual(ro.steps[4].observations, []);
      const times = ro.steps.map((s) => s.castTime).filter((t): t is number => t !== null);
      assert.deepEqual(times, [...times].sort((a, b) => a - b));
      assert.deepEqual(ro.recording, { path: sample(`${HELLO}/sessions/agent.cast`), kind: 'asciicast' });
      assert.equal(ro.metadata.testsRecording, sample(`${HELLO}/sessions/tests.cast`));
      assert.equal((ro.metadata.panes as Record<string, string>)['post-test'], sample(`${HELLO}/panes/post-test.txt`));
    });

    it('agent and model from run_metadata.json two levels up', async () => {
      const run = tmpDir();
      fs.copyFileSync(sample(RUN_META), path.join(run, 'run_metadata.json'));
      const trial = copyTrial(HELLO, path.join(run, 'hello-world', 'hello-world.1-of-5'));
      const meta = sampleJson(RUN_META);
      const r = (await loadFile(path.join(trial, 'results.json'))).rollouts[0];
      assert.equal(r.agent.name, meta.agent_name);
      assert.equal(r.agent.model, meta.model_name);
      assert.equal(r.metadata.runId, meta.run_id);
      assert.equal(r.metadata.datasetVersion, meta.dataset_version);
    });
  });

  describe('trial folder with agent-logs: lcbpro-1983a', () => {
    const results = sampleJson(`${LCB}/results.json`);
    const evs = castEvents(`${LCB}/sessions/agent.cast`);
    const response = sampleJson(`${LCB}/agent-logs/response.json`);
    let ro: Rollout;
    before(async () => {
      ro = (await loadFile(sample(`${LCB}/results.json`))).rollouts[0];
    });

    it('the agent command is matched to its input event (with the harness blocking suffix)', () => {
      Rollout.parse(ro);
      const agent = ro.steps.filter((s) => s.role === 'agent');
      assert.equal(agent.length, 1);
      const step = agent[0];
      assert.equal(step.sourceId, 3);
      const k = evs.findIndex((e) => e[1] === 'i' && e[2].startsWith("echo '"));
      assert.ok(evs[k][2].endsWith('; tmux wait -S done\r'));
      assert.equal(step.actions[0].command, evs[k][2].replace('; tmux wait -S done\r', '\n'));
      assert.equal(step.castTime, evs[k][0]);
      const next = evs.findIndex((e, j) => j > k && e[1] === 'i');
      assert.equal(step.observations[0].output, outputBetween(evs, k, next));
      assert.equal(step.durationSec, Math.round((evs[next][0] - evs[k][0]) * 1e6) / 1e6);
      const inputTimes = evs.filter((e) => e[1] === 'i').map((e) => e[0]);
      assert.deepEqual(
        ro.steps.filter((s) => (s.castTime ?? 0) > 0).map((s) => s.castTime),
        inputTimes,
      );
      assert.deepEqual(ro.metadata.castMatch, { agentSessionCommands: 4, matched: 3 });
    });

    it("attaches the model's explanation from agent-logs/response.json, and the model from debug.json", () => {
      const step = ro.steps.find((s) => s.role === 'agent')!;
      assert.equal(step.message, response.explanation);
      assert.equal(step.reasoning, null);
      const logs = ro.metadata.agentLogs as Record<string, unknown>;
      // The agent sent the file as `echo <base64> | base64 -d`, not the heredoc it answered: matched by position.
      assert.equal(logs.matchedBy, 'position');
      assert.equal(logs.matched, 1);
      assert.equal(ro.agent.model, sampleJson(`${LCB}/agent-logs/debug.json`).model);
      assert.ok(ro.steps.filter((s) => s.role !== 'agent').every((s) => s.message === ''));
    });

    it('outcome and timings from results.json', () => {
      assert.equal(ro.id, results.id);
      assert.equal(ro.outcome.resolved, true);
      assert.equal(ro.outcome.status, 'unset');
      assert.deepEqual(ro.outcome.rewards, { test_external_judge: 1 });
      const timings = ro.metadata.timings as Record<string, string>;
      assert.equal(timings.agent_started_at, results.agent_started_at);
      assert.equal(timings.test_ended_at, results.test_ended_at);
    });

    it('Terminus episode logs attach by command text (episode-0/response.json built from the sample)', async () => {
      const dir = copyTrial(LCB, path.join(tmpDir(), 'trial'));
      const cmd = parseCommandsTxt('/c', fs.readFileSync(path.join(dir, 'commands.txt'), 'utf8'))[2].keys[0];
      fs.rmSync(path.join(dir, 'agent-logs', 'response.json'));
      fs.mkdirSync(path.join(dir, 'agent-logs', 'episode-0'));
      fs.writeFileSync(
        path.join(dir, 'agent-logs', 'episode-0', 'response.json'),
        JSON.stringify({ state_analysis: 'Empty /app.', explanation: response.explanation, commands: [{ keystrokes: cmd + '\n', is_blocking: true, timeout_sec: 10 }], is_task_complete: true }),
      );
      const r = (await loadFile(path.join(dir, 'results.json'))).rollouts[0];
      const step = r.steps.find((s) => s.role === 'agent')!;
      assert.equal(step.message, response.explanation);
      assert.equal(step.reasoning, 'Empty /app.');
      assert.equal((r.metadata.agentLogs as Record<string, unknown>).matchedBy, 'command');
    });

    it('a cast cut off mid-line still gives the steps before the cut, with the issue reported', async () => {
      const dir = copyTrial(LCB, path.join(tmpDir(), 'trial'));
      const cast = path.join(dir, 'sessions', 'agent.cast');
      const text = fs.readFileSync(cast, 'utf8').trimEnd();
      fs.writeFileSync(cast, text.slice(0, text.length - 5));
      const loaded = await loadFile(path.join(dir, 'results.json'));
      assert.equal(loaded.issues?.length, 1);
      assert.equal(loaded.issues?.[0].file, cast);
      assert.equal(loaded.issues?.[0].line, text.split('\n').length);
      const step = loaded.rollouts[0].steps.find((s) => s.role === 'agent')!;
      assert.equal(step.castTime, evs.find((e) => e[1] === 'i' && e[2].startsWith("echo '"))![0]);
    });

    it('without commands.txt the steps are the input lines of sessions/agent.cast', async () => {
      const dir = copyTrial(LCB, path.join(tmpDir(), 'trial'));
      fs.rmSync(path.join(dir, 'commands.txt'));
      const r = (await loadFile(path.join(dir, 'results.json'))).rollouts[0];
      const inputs = evs.filter((e) => e[1] === 'i');
      const withInput = r.steps.filter((s) => s.actions.length > 0);
      assert.deepEqual(withInput.map((s) => s.actions[0].command), inputs.map((e) => e[2]));
      assert.deepEqual(withInput.map((s) => s.castTime), inputs.map((e) => e[0]));
      assert.equal(r.metadata.stepsFrom, path.join(dir, 'sessions', 'agent.cast'));
      assert.ok(r.steps.every((s) => s.file === path.join(dir, 'sessions', 'agent.cast')));
    });

    it('a wrong type in results.json is located with its pointer', async () => {
      const dir = copyTrial(LCB, path.join(tmpDir(), 'trial'));
      const file = path.join(dir, 'results.json');
      const text = fs.readFileSync(file, 'utf8').replace('"is_resolved": true', '"is_resolved": "yes"');
      fs.writeFileSync(file, text);
      await assert.rejects(loadFile(file), (e: unknown) => {
        assert.ok(e instanceof RolloutLoadError);
        assert.equal(e.issues[0].pointer, '/is_resolved');
        assert.deepEqual({ line: e.issues[0].line, column: e.issues[0].column }, position(text, text.indexOf('"yes"')));
        return true;
      });
    });
  });

  describe('run-level results.json: goose (no trial folders)', () => {
    const raw = sampleJson(GOOSE);
    let rollouts: Rollout[];
    before(async () => {
      const loaded = await loadFile(sample(GOOSE));
      assert.equal(loaded.format, 'tb1-run');
      rollouts = loaded.rollouts;
    });

    it('one rollout per trial; resolved count = n_resolved', () => {
      assert.equal(rollouts.length, raw.results.length);
      assert.equal(rollouts.length, 80);
      rollouts.forEach((r) => Rollout.parse(r));
      assert.equal(rollouts.filter((r) => r.outcome.resolved === true).length, raw.n_resolved);
      assert.equal(rollouts.filter((r) => r.outcome.resolved !== true).length, raw.n_unresolved);
      assert.deepEqual(rollouts.map((r) => r.id), raw.results.map((t: any) => t.id));
      assert.deepEqual(rollouts.map((r) => r.outcome.status), raw.results.map((t: any) => t.failure_mode));
      assert.deepEqual(rollouts.map((r) => r.task.id), raw.results.map((t: any) => t.task_id));
      assert.ok(rollouts.every((r) => r.steps.length === 0 && r.recording === null));
      assert.equal((rollouts[0].metadata.run as Record<string, unknown>).accuracy, raw.accuracy);
    });

    it('unknown outcomes stay unknown (parse_error trials)', () => {
      const k = raw.results.findIndex((t: any) => t.failure_mode === 'parse_error');
      assert.ok(k >= 0);
      assert.equal(raw.results[k].is_resolved, null);
      assert.equal(rollouts[k].outcome.resolved, null);
      assert.equal(rollouts[k].outcome.rewards, null);
      assert.equal(rollouts[k].outcome.reward, null);
      const q = raw.results.findIndex((t: any) => t.task_id === 'qemu-startup');
      assert.equal(rollouts[q].outcome.resolved, true);
      assert.equal(rollouts[q].outcome.status, 'agent_timeout');
    });

    it('each rollout points at its object in results[]', () => {
      const text = fs.readFileSync(sample(GOOSE), 'utf8');
      for (const k of [0, 41, 79]) {
        const r = rollouts[k].source.range!;
        assert.deepEqual(JSON.parse(text.slice(r.start, r.end)), raw.results[k]);
      }
    });

    it('detectors tell trial and run files apart', async () => {
      const trialDoc = { value: sampleJson(`${HELLO}/results.json`) };
      const runDoc = { value: raw };
      assert.equal(tb1TrialLoader.detect({ doc: runDoc } as any).accept, false);
      assert.equal(tb1RunLoader.detect({ doc: trialDoc } as any).accept, false);
      assert.equal(tb1RunLoader.detect({ doc: runDoc } as any).accept, true);
      assert.equal(tb1TrialLoader.detect({ doc: trialDoc } as any).accept, true);
    });
  });

  describe('run folder with trial folders', () => {
    /** A run folder built from the samples: results.json = BenchmarkResults of the two sample trials. */
    function makeRun(): { run: string; trials: any[] } {
      const run = path.join(tmpDir(), '2025-09-05__17-54-55');
      const trials = [sampleJson(`${HELLO}/results.json`), sampleJson(`${LCB}/results.json`)];
      for (const [rel, t] of [
        [HELLO, trials[0]],
        [LCB, trials[1]],
      ] as const) {
        copyTrial(rel, path.join(run, t.task_id, t.trial_name));
      }
      fs.copyFileSync(sample(RUN_META), path.join(run, 'run_metadata.json'));
      const n = trials.filter((t) => t.is_resolved).length;
      fs.writeFileSync(
        path.join(run, 'results.json'),
        JSON.stringify({ id: 'run-1', results: trials, pass_at_k: {}, n_resolved: n, n_unresolved: trials.length - n, accuracy: n / trials.length }, null, 4),
      );
      return { run, trials };
    }

    it('a folder scan lists the run results.json once, not each trial again, with steps from the trial folders', async () => {
      const { run, trials } = makeRun();
      const res = await loadPath(run);
      assert.deepEqual(res.failures, []);
      assert.deepEqual(res.files.map((f) => [path.relative(run, f.path), f.format]), [['results.json', 'tb1-run']]);
      const rollouts = res.files[0].rollouts;
      assert.deepEqual(rollouts.map((r) => r.id), [trials[0].uuid, trials[1].id]);
      const own = await Promise.all([HELLO, LCB].map(async (rel) => (await loadFile(sample(`${rel}/results.json`))).rollouts[0]));
      rollouts.forEach((r, k) => {
        assert.equal(r.steps.length, own[k].steps.length);
        assert.deepEqual(r.steps.map((s) => [s.castTime, s.actions[0].command, s.message]), own[k].steps.map((s) => [s.castTime, s.actions[0].command, s.message]));
        assert.equal(r.recording?.path, path.join(run, trials[k].task_id, trials[k].trial_name, 'sessions', 'agent.cast'));
        assert.equal(r.agent.name, sampleJson(RUN_META).agent_name);
      });
      // The trial folder alone is still a rollout of its own.
      const alone = await loadPath(path.join(run, trials[1].task_id, trials[1].trial_name));
      assert.deepEqual(alone.files.map((f) => [path.basename(f.path), f.format]), [['results.json', 'tb1-trial']]);
    });

    it('a trial folder that cannot be read keeps its outcome, without steps, and the issue is reported', async () => {
      const { run, trials } = makeRun();
      const cmds = path.join(run, trials[1].task_id, trials[1].trial_name, 'commands.txt');
      fs.writeFileSync(cmds, fs.readFileSync(cmds, 'utf8').replace("['clear', 'Enter']", "['clear' 'Enter']"));
      const loaded = await loadFile(path.join(run, 'results.json'));
      assert.equal(loaded.rollouts.length, 2);
      assert.equal(loaded.rollouts[1].steps.length, 0);
      assert.equal(loaded.rollouts[1].outcome.resolved, trials[1].is_resolved);
      assert.equal(loaded.issues?.[0].file, cmds);
      assert.equal(loaded.issues?.[0].line, 2);
      assert.equal(loaded.issues?.[0].expected, "',' or ']'");
      assert.ok(loaded.rollouts[0].steps.length > 0);
    });
  });
});
