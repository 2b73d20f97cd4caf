import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { toScoreRollout } from '../../../src/core/scoring/input';
import type { ScoreStep } from '../../../src/core/scoring/protocol';
import { labelOf, newState, parseTestCounts, RULES, scoreRollout, scoreStep, VALUES } from '../../../src/scorers/builtin/rules';
import { censusFile, sample } from '../samples';

function agent(index: number, command: string | null, output: string | null, exitCode: number | null, extra: Partial<ScoreStep> = {}): ScoreStep {
  return {
    index,
    role: 'agent',
    message: null,
    reasoning: null,
    actions: command === null ? [] : [{ kind: 'shell', command, tool: null, arguments: null }],
    observations: output === null && exitCode === null ? [] : [{ output, exitCode, truncated: false }],
    durationMs: null,
    ...extra,
  };
}

describe('built-in scorer rules', () => {
  it('reads test summaries of pytest, unittest, jest, go and cargo', () => {
    assert.deepEqual(parseTestCounts('collected 5 items\n\n=== 2 failed, 3 passed in 0.12s ==='), { failed: 2, passed: 3 });
    assert.deepEqual(parseTestCounts('..... \n5 passed in 0.01s'), { failed: 0, passed: 5 });
    assert.deepEqual(parseTestCounts('== 1 failed, 1 passed, 2 errors in 1.0s =='), { failed: 3, passed: 1 });
    assert.deepEqual(parseTestCounts('Ran 4 tests in 0.002s\n\nFAILED (failures=1, errors=1)'), { failed: 2, passed: 2 });
    assert.deepEqual(parseTestCounts('Ran 3 tests in 0.001s\n\nOK'), { failed: 0, passed: 3 });
    assert.deepEqual(parseTestCounts('Tests:       1 failed, 3 passed, 4 total'), { failed: 1, passed: 3 });
    assert.deepEqual(parseTestCounts('--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/x\t0.003s'), { failed: 1, passed: 0 });
    assert.deepEqual(parseTestCounts('test result: FAILED. 3 passed; 1 failed; 0 ignored'), { failed: 1, passed: 3 });
    assert.deepEqual(parseTestCounts('Finished in 0.4 seconds\n14 doctests, 65 tests, 0 failures'), { failed: 0, passed: 79 });
    assert.deepEqual(parseTestCounts('Finished in 0.1 seconds\n18 tests, 2 failures, 1 excluded'), { failed: 2, passed: 16 });
    assert.deepEqual(parseTestCounts('5 examples, 1 failure'), { failed: 1, passed: 4 });
    assert.equal(parseTestCounts('total 12\ndrwxr-xr-x 2 root root 4096 src'), null);
  });

  it('caps a non-zero exit code, error text and timeouts, and names the rule', () => {
    const s = newState();
    const a = scoreStep(agent(0, 'ls /nope', 'ls: cannot access', 2), s);
    assert.equal(a.value, VALUES.exitCode);
    assert.equal(a.label, 'bad');
    assert.match(a.explanation!, /^exit-code: exit code 2/);
    const b = scoreStep(agent(1, 'python x.py', 'Traceback (most recent call last):\n  File "x.py"\nNameError: name y', null), s);
    assert.equal(b.value, VALUES.errorText);
    assert.match(b.explanation!, /error-text: Traceback/);
    const c = scoreStep(agent(2, 'sleep 999', '', 124), s);
    assert.equal(c.value, VALUES.timeout);
    assert.match(c.explanation!, /timeout: exit code 124/);
    const d = scoreStep(agent(3, 'make', 'make: *** command timed out', null), s);
    assert.equal(d.value, VALUES.timeout);
  });

  it('follows failing-test counts through the rollout', () => {
    const r = {
      id: 'r',
      task: { id: null, instruction: null },
      steps: [
        agent(0, 'pytest', '=== 3 failed, 1 passed in 0.2s ===', 1),
        agent(1, 'pytest -x', '=== 3 failed, 1 passed in 0.2s ===', 1),
        agent(2, 'pytest tests', '=== 1 failed, 3 passed in 0.2s ===', 1),
        agent(3, 'pytest tests/', '=== 2 failed, 2 passed in 0.2s ===', 1),
        agent(4, 'pytest -q', '4 passed in 0.1s', 0),
      ],
    };
    const out = scoreRollout(r);
    assert.deepEqual(out.map((s) => s.value), [VALUES.testsFail, VALUES.testsSame, VALUES.testsFewer, VALUES.testsMore, VALUES.testsPass]);
    assert.match(out[2].explanation!, /failing tests 3 → 1/);
    assert.match(out[4].explanation!, /all 4 tests pass/);
  });

  it('catches repeated commands, worse when the earlier run failed', () => {
    const out = scoreRollout({
      id: 'r',
      task: { id: null, instruction: null },
      steps: [agent(0, 'cat a.txt', 'hello', 0), agent(1, 'cat a.txt', 'hello', 0), agent(2, 'gcc x.c', 'x.c:1: error', 1), agent(3, 'gcc x.c', 'x.c:1: error', 1)],
    });
    assert.equal(out[1].value, VALUES.repeat);
    assert.match(out[1].explanation!, /repeats #1/);
    assert.equal(out[3].value, Math.min(VALUES.repeatFailed, VALUES.exitCode));
    assert.match(out[3].explanation!, /repeat-failed: repeats #3, which failed/);
  });

  it('caps a tool error a coding agent recorded (is_error) and an interrupted call, unless an exit code already says it failed', () => {
    const s = newState();
    const withObs = (i: number, o: Partial<ScoreStep['observations'][number]>): ScoreStep =>
      agent(i, `cmd${i}`, null, null, { observations: [{ output: 'some output', exitCode: null, truncated: false, ...o }] });
    const e = scoreStep(withObs(0, { isError: true }), s);
    assert.equal(e.value, VALUES.toolError);
    assert.match(e.explanation!, /^tool-error/);
    const both = scoreStep(withObs(1, { isError: true, exitCode: 2 }), s);
    assert.equal(both.value, VALUES.exitCode);
    assert.doesNotMatch(both.explanation!, /tool-error/);
    const stopped = scoreStep(withObs(2, { interrupted: true }), s);
    assert.equal(stopped.value, VALUES.interrupted);
    assert.match(stopped.explanation!, /interrupted/);
    assert.equal(scoreStep(withObs(3, { isError: false }), s).value, VALUES.baseToolOk);
  });

  it('marks no-op and empty steps, leaves non-agent steps unscored', () => {
    const s = newState();
    assert.equal(scoreStep(agent(0, null, null, null, { message: 'Let me think.' }), s).value, VALUES.noOp);
    assert.equal(scoreStep(agent(1, null, null, null), s).value, VALUES.empty);
    assert.equal(scoreStep(agent(2, '   ', '', 0), s).value, VALUES.noOp);
    const u = scoreStep({ ...agent(3, null, null, null), role: 'user' }, s);
    assert.equal(u.value, null);
    assert.equal(scoreStep(agent(4, 'ls', 'a b', 0), s).value, VALUES.baseExitZero);
    assert.equal(labelOf(0.6), 'good');
    assert.equal(labelOf(0.45), 'neutral');
    assert.equal(RULES.length, 17);
  });

  it('scores a real SWE-agent rollout: exception text and repeats are found where the file has them', async () => {
    const f = await loadFile(sample('swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj'));
    const r = toScoreRollout(f.rollouts[0]);
    const out = scoreRollout(r);
    assert.equal(out.length, r.steps.length);
    for (const [i, s] of out.entries()) {
      const step = r.steps[i];
      if (step.role !== 'agent') {
        assert.equal(s.value, null);
        continue;
      }
      assert.ok(s.value !== null && s.value >= 0 && s.value <= 1);
      const text = step.observations.map((o) => o.output ?? '').join('\n');
      if (/error-text/.test(s.explanation!)) assert.match(text, /Traceback|[A-Z][A-Za-z]*(Error|Exception):|command not found|No such file|Permission denied|fatal: |ERROR: |Segmentation fault|panic: /);
    }
    assert.ok(out.some((s) => /error-text/.test(s.explanation ?? '')), 'the rollout has a step with an exception in its output');
    assert.ok(out.some((s) => /^repeat/.test(s.explanation ?? '')), 'the rollout repeats a command');
  });

  it("scores the harness's own parse-error complaint bad, not neutral (real Terminus 2 ATIF sample, step #2)", async () => {
    const f = await loadFile(sample('atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json'));
    const r = toScoreRollout(f.rollouts[0]);
    const step = r.steps[1];
    assert.match(step.observations.map((o) => o.output ?? '').join('\n'), /Previous response had parsing errors/);
    const out = scoreRollout(r)[1];
    assert.equal(out.label, 'bad');
    assert.ok(out.value !== null && out.value <= VALUES.harnessError);
    assert.match(out.explanation ?? '', /harness-error/);
    assert.doesNotMatch(out.explanation ?? '', /error-text/, 'the complaint is named once, as the harness');
  });

  it('counts SWE-agent and mini-swe-agent format errors, a tool\'s ERROR: line, and a failing command run again', () => {
    const s = newState();
    assert.equal(scoreStep(agent(0, null, 'Your output was not formatted correctly. You must always include one discussion and one command as part of your response.', null), s).label, 'bad');
    assert.equal(scoreStep(agent(1, null, 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.', null), s).label, 'bad');
    assert.equal(scoreStep(agent(2, 'str_replace_editor view /nope', 'ERROR: Invalid `path` parameter: /nope. The path /nope does not exist.', null), s).label, 'bad');
    const first = scoreStep(agent(3, 'pytset -x', 'bash: pytset: command not found', null), s);
    assert.equal(first.label, 'bad');
    const again = scoreStep(agent(4, 'pytset -x', 'bash: pytset: command not found', null), s);
    assert.ok(again.value !== null && again.value <= VALUES.repeatFailed);
    assert.match(again.explanation ?? '', /repeat-failed/);
  });

  it('spreads calls without an exit code by what they returned: output or a said success is some evidence, an edit the tool reports done more, nothing stays neutral', () => {
    const s = newState();
    const tool = (i: number, kind: 'tool' | 'edit' | 'keys', o: ScoreStep['observations']): ScoreStep => ({
      ...agent(i, null, null, null),
      actions: [{ kind, command: kind === 'keys' ? `echo ${i}\n` : null, tool: kind === 'keys' ? null : `t${i}`, arguments: `{"n":${i}}` }],
      observations: o,
    });
    const out = (output: string | null, extra: Partial<ScoreStep['observations'][number]> = {}): ScoreStep['observations'] => [{ output, exitCode: null, truncated: false, ...extra }];
    const read = scoreStep(tool(0, 'tool', out('     1→defmodule X do')), s);
    assert.equal(read.value, VALUES.baseToolOk);
    assert.match(read.explanation!, /^tool-ok/);
    assert.equal(scoreStep(tool(1, 'tool', out('', { isError: false })), s).value, VALUES.baseToolOk, 'the format says it succeeded');
    const edit = scoreStep(tool(2, 'edit', out('The file /app/x.py has been updated successfully.')), s);
    assert.equal(edit.value, VALUES.baseEditOk);
    assert.match(edit.explanation!, /^edit-ok/);
    assert.equal(scoreStep(tool(3, 'edit', out('Success. Updated the following files:\nM notes.txt')), s).value, VALUES.baseEditOk);
    const none = scoreStep(tool(4, 'tool', []), s);
    assert.equal(none.value, VALUES.baseUnknown);
    assert.match(none.explanation!, /no signal \(no result recorded\)/);
    assert.equal(scoreStep(tool(5, 'tool', out('')), s).value, VALUES.baseUnknown, 'an empty result says nothing');
    const keys = scoreStep(tool(6, 'keys', out('root@host:/app# echo 6\n6')), s);
    assert.equal(keys.value, VALUES.baseUnknown, 'a terminal screen is no evidence that keystrokes worked');
    assert.match(keys.explanation!, /keystrokes/);
  });

  it("catches a tool's ERROR: on its own line, a rejected patch, an editor's new problems and a denied call", () => {
    const s = newState();
    const obs = (i: number, output: string): ScoreStep => agent(i, null, null, null, { actions: [{ kind: 'edit', command: null, tool: 'editor', arguments: `{"i":${i}}` }], observations: [{ output, exitCode: null, truncated: false }] });
    assert.equal(scoreStep(obs(0, 'OBSERVATION:\nERROR:\nInvalid `view_range`: [0, 40].'), s).value, VALUES.errorText);
    assert.equal(scoreStep(obs(1, 'patch rejected: empty patch'), s).value, VALUES.errorText);
    const diag = scoreStep(obs(2, 'The content was successfully saved to x.ts.\n\nNew problems detected after saving the file:\nx.ts\n- [ts Error] Line 77: Type \'string | undefined\' is not assignable to type \'string\'.'), s);
    assert.equal(diag.value, VALUES.errorText);
    assert.match(diag.explanation!, /new problems reported after the edit/);
    const denied = scoreStep(obs(3, 'The user denied this operation and provided the following feedback:\n<feedback>\nnot this file\n</feedback>'), s);
    assert.equal(denied.value, VALUES.denied);
    assert.match(denied.explanation!, /^denied/);
  });

  it('judges a file edit by the next test run after it: passing raises it, more failures cap it', () => {
    const edit = (i: number, path: string): ScoreStep => agent(i, null, null, null, { actions: [{ kind: 'edit', command: null, tool: 'str_replace_editor', arguments: `{"path":"${path}"}` }], observations: [{ output: `The file ${path} has been edited.`, exitCode: null, truncated: false }] });
    const out = scoreRollout({
      id: 'r',
      task: { id: null, instruction: null },
      steps: [
        agent(0, 'pytest', '=== 2 failed, 3 passed in 0.2s ===', 1),
        edit(1, 'a.py'),
        agent(2, 'pytest -q', '5 passed in 0.1s', 0),
        edit(3, 'b.py'),
        agent(4, 'cat b.py', 'x = 1', 0),
        agent(5, 'pytest tests', '=== 4 failed, 1 passed in 0.2s ===', 1),
        edit(6, 'c.py'),
      ],
    });
    assert.equal(out[1].value, VALUES.editVerified);
    assert.match(out[1].explanation!, /^edit-verified: the tests at #3 pass; edit-ok/);
    assert.equal(out[3].value, VALUES.editRegressed);
    assert.match(out[3].explanation!, /^edit-regressed: more tests fail at #6/);
    assert.equal(out[4].value, VALUES.baseExitZero, 'only edits are judged by the next test run');
    assert.equal(out[6].value, VALUES.baseEditOk, 'no test run after it: the edit keeps its own value');
  });

  it('scores a real Claude Code session by what its calls returned, not 0.50 for every call (census session)', async () => {
    const f = await loadFile(censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
    const r = toScoreRollout(f.rollouts[0]);
    const out = scoreRollout(r).filter((s) => s.value !== null);
    assert.ok(out.length > 100);
    const neutral = out.filter((s) => s.value === VALUES.baseUnknown).length;
    assert.ok(neutral / out.length < 0.1, `${neutral} of ${out.length} steps at 0.50`);
    assert.ok(out.some((s) => /^tests-pass/.test(s.explanation ?? '')), "mix test's `N tests, 0 failures` is read as a test run");
    assert.ok(out.some((s) => /edit-ok|edit-verified/.test(s.explanation ?? '')));
    assert.ok(out.some((s) => s.label === 'bad'), 'its failed calls still score bad');
  });
});
