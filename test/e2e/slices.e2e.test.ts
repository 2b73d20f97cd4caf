/**
 * e2e, issue 7: a 10,000-step mini-swe-agent trajectory (built from the real sample's message
 * shapes, every output long and ending in a line naming its step) opens in code-server's timeline
 * as step heads: the header says the rollout loads as it scrolls and how much was sent up front,
 * and the keyboard walks to the last step, whose card then shows its real, full output text, which
 * the heads never held.
 *
 * Screenshot: .test-artifacts/e2e/slices-last-step.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../src/core/load';
import { e2eSuite, openTimeline, sample, screenshot, UI_MS, waitUntil } from './harness';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
const FILE = 'long-run-trajectory.json';
const STEPS = 10_000;

/** The last line of step `i`'s output (0-based step index). */
const endLine = (i: number): string => `end of step ${i + 1} output`;

/**
 * A mini-swe-agent trajectory of `steps` steps: the sample's system and task messages, then
 * assistant / observation message pairs (one step each) shaped like the sample's, 40 lines of output each.
 */
function writeLongTrajectory(file: string, steps: number): void {
  const base = JSON.parse(fs.readFileSync(sample(MINI), 'utf8')) as { info: unknown; messages: { role: string; content: unknown }[]; trajectory_format: string };
  const [system, task] = base.messages;
  const messages: unknown[] = [system, task];
  for (let i = 2; i < steps; i++) {
    messages.push({ role: 'assistant', content: `THOUGHT: Step ${i + 1}: list the files again and count them.\n\n\`\`\`bash\nls -la /app | head -40 # step ${i + 1}\n\`\`\`` });
    const lines = Array.from({ length: 40 }, (_, k) => `-rw-r--r-- 1 root root ${1000 + k} Oct 10 06:35 file-${i + 1}-${k}.txt`);
    messages.push({ role: 'user', content: [{ type: 'text', text: `<returncode>0</returncode>\n<output>\n${lines.join('\n')}\n${endLine(i)}\n</output>` }] });
  }
  fs.writeFileSync(file, JSON.stringify({ ...base, messages }));
}

describe('e2e: a 10,000-step rollout is fetched in slices (issue 7)', function () {
  this.timeout(600_000);

  const e2e = e2eSuite({
    name: 'slices',
    prepare: async (workspace) => {
      const file = path.join(workspace, FILE);
      writeLongTrajectory(file, STEPS);
      // The real loader reads it as the test expects: 10,000 steps, the last output ending in its line.
      const r = (await loadFile(file)).rollouts[0];
      assert.equal(r.steps.length, STEPS);
      assert.ok(r.steps[STEPS - 1].observations[0].output.includes(endLine(STEPS - 1)));
    },
  });

  it('opens as step heads and walks to the last step, which shows its full output', async () => {
    const web = await openTimeline(e2e.page, FILE);
    const stepCount = web.locator('#step-count');
    assert.match((await stepCount.innerText()).trim(), new RegExp(`^${STEPS} steps`));
    // Sliced mode: the marker, and what it says was sent up front against the whole rollout.
    assert.equal(await web.locator('main.timeline').getAttribute('data-sliced'), 'true');
    const marker = web.locator('header .sliced');
    await marker.waitFor({ state: 'visible' });
    const title = (await marker.getAttribute('title')) ?? '';
    const m = /is ([\d.]+) MB of text.*\(([\d.]+) (MB|KB) sent up front\)/.exec(title);
    assert.ok(m, `the marker's title gives the sizes: ${title}`);
    const whole = Number(m[1]);
    const sent = Number(m[2]) / (m[3] === 'KB' ? 1024 : 1);
    assert.ok(whole > 15 && sent < whole / 4, `whole ${whole} MB, sent ${sent} MB`);
    // The first card comes with its full output once its slice is there.
    const first = web.locator('.step-card[data-index="2"]');
    await waitUntil(async () => (await first.locator('pre.output').allInnerTexts()).join('').includes(endLine(2)), 60_000,
      async () => `step 3 never showed its full output: ${await first.innerText().catch(() => '')}`);

    // The keyboard walks to the last step: End, then the card loads its content.
    await stepCount.click();
    await e2e.page.keyboard.press('End');
    const last = web.locator(`.step-card[data-index="${STEPS - 1}"]`);
    await waitUntil(async () => /\bselected\b/.test((await last.getAttribute('class')) ?? ''), 60_000,
      async () => `the last step is not selected: ${await web.locator('.step-card.selected').getAttribute('data-index').catch(() => 'none')}`);
    await waitUntil(
      async () => {
        if (!(await last.count())) {
          // Known flake (closing note, session 3): while the slices around the end arrive the view
          // can drift up and the virtualizer drops the selected last card; End reveals it again.
          await e2e.page.keyboard.press('End');
          return false;
        }
        return (await last.locator('pre.output').allInnerTexts()).join('').includes(endLine(STEPS - 1));
      },
      60_000,
      async () => `the last step never showed its full output: ${await last.innerText().catch(() => '')}`,
    );
    assert.equal(await last.locator('.slice-loading').count(), 0);
    assert.ok((await last.locator('.action-command').innerText()).includes(`# step ${STEPS}`));
    await screenshot(e2e.page, 'slices-last-step');
    // k steps back onto a step fetched with it (same slice), full at once.
    await e2e.page.keyboard.press('k');
    const prev = web.locator(`.step-card[data-index="${STEPS - 2}"]`);
    await waitUntil(async () => (await prev.locator('pre.output').allInnerTexts()).join('').includes(endLine(STEPS - 2)), UI_MS,
      async () => `step ${STEPS - 1} never showed its full output`);
  });
});
