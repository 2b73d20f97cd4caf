/**
 * One wording of a replayed step's verdict (issue 21 item 8): comparisons made by core compareStep
 * from the real plan of a mini-swe-agent sample read the same in the terminal line, the diff editor's
 * title and the diff documents' header; the terminals of failed starts of a file close when a new
 * replay of that file starts.
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { compareStep } from '../../../src/core/replay/compare';
import { buildPlan } from '../../../src/core/replay/plan';
import { diffHeader, diffTitle, FailedTerminals, verdictText } from '../../../src/host/replay/wording';
import { sample } from '../samples';

describe('replay verdict wording (issue 21 item 8)', () => {
  it('the terminal, the diff title and the diff header say the exit code the same way', async () => {
    const r = (await loadFile(sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json'))).rollouts[0];
    const plan = buildPlan(r, { image: 'x' });
    const i = plan.steps.findIndex((s) => s.replayable && s.recorded.exitCode !== null);
    assert.ok(i >= 0, 'the sample records exit codes');
    const rec = plan.steps[i].recorded.exitCode!;
    const c = await compareStep(plan, i, { output: 'nope\n', exitCode: rec + 127, cwd: null, timedOut: false, capped: false, error: null });
    assert.equal(c.status, 'differs');
    const v = verdictText(c);
    assert.equal(v, `differs: exit code ${rec} → ${rec + 127}`);
    assert.ok(diffTitle(c.stepIndex, c).endsWith(v));
    assert.equal(diffHeader(c.replayed!.exitCode, null), `[exit code ${rec + 127}]\n`);
    const timeout = await compareStep(plan, i, { output: '', exitCode: 137, cwd: null, timedOut: true, capped: false, error: null }, { stateMayDiffer: true });
    assert.equal(verdictText(timeout), 'differs: ran past the step timeout (stopped) · exit code 137 (state may differ)');
    const same = await compareStep(plan, i, { output: plan.steps[i].recorded.output, exitCode: plan.steps[i].recorded.exitCode, cwd: null, timedOut: false, capped: false, error: null });
    assert.match(verdictText(same), /^same/);
    assert.doesNotMatch(verdictText(same), /same: same/);
  });

  it('failed-start terminals of a file close when the next replay of it starts', () => {
    const closed: string[] = [];
    const t = (n: string) => ({ dispose: () => closed.push(n) });
    const ft = new FailedTerminals<{ dispose(): void }>();
    const a1 = t('a1');
    ft.keep('/a', a1);
    ft.keep('/a', t('a2'));
    ft.keep('/b', t('b1'));
    ft.forget(a1);
    assert.equal(ft.closeFor('/a'), 1);
    assert.deepEqual(closed, ['a2']);
    assert.equal(ft.closeFor('/a'), 0);
    assert.equal(ft.closeFor('/b'), 1);
  });
});
