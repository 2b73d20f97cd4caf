import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { toScoreRollout } from '../../../src/core/scoring/input';
import type { ScoreStep } from '../../../src/core/scoring/protocol';
import { labelOf, newState, parseTestCounts, RULES, scoreRollout, scoreStep, VALUES } from '../../../src/scorers/builtin/rules';
import { sample } from '../samples';

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
    assert.equal(scoreStep(withObs(3, { isError: false }), s).value, VALUES.baseUnknown);
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
    assert.equal(RULES.length, 14);
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
});
