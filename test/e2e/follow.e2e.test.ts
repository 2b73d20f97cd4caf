/**
 * e2e, live follow (issue 13): an OpenHands V1 events JSONL file (the real event shapes of the
 * software-agent-sdk fixture conversation, test/unit/v1Session.ts) open in the timeline of the
 * packaged extension in code-server while lines are appended to it, as a running agent appends
 * them: with Follow on, each appended step shows and the newest step is in view; a line written in
 * two parts shows once complete; the step selected before stays selected.
 *
 * Screenshots: .test-artifacts/e2e/follow-appended.png (Follow on, the appended steps in view).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

declare const window: { scrollTo(x: number, y: number): void };
import { session, toJsonl } from '../unit/v1Session';
import { ARTIFACTS, e2eSuite, extensionHostLogs, OPEN_MS, quickOpen, rolloutsPane, runCommand, screenshot, UI_MS, waitUntil } from './harness';

// Named as the Rollouts view's default globs list it (`**/*rollouts*.jsonl`).
const REL = 'sessions/agent-rollouts.jsonl';

describe('e2e: live follow of a session being written', function () {
  this.timeout(300_000);

  const all = session(40);
  /** Lines written so far. */
  let written = 0;
  let file: string;
  const e2e = e2eSuite({
    name: 'follow',
    prepare: (workspace) => {
      file = path.join(workspace, REL);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      written = 12;
      fs.writeFileSync(file, toJsonl(all.slice(0, written)));
    },
  });

  /** Steps the file's first `lines` lines make (system, user, one per call, closing messages). */
  const stepsOf = (lines: number): string[] => all.slice(0, lines).filter((e) => e.kind !== 'ObservationEvent').map((e) => e.id);

  it('opens the JSONL session with "Open in Trajectory Inspector" and follows it', async () => {
    await quickOpen(e2e.page, REL);
    await e2e.page.locator('.editor-group-container .tab.active', { hasText: 'agent-rollouts.jsonl' }).waitFor({ state: 'visible', timeout: UI_MS });
    await runCommand(e2e.page, 'Open in Trajectory Inspector');
    const web = e2e.web();
    const count = web.locator('#step-count');
    await count.waitFor({ state: 'visible', timeout: OPEN_MS });
    assert.match(await count.innerText(), new RegExp(`^${stepsOf(written).length} steps`));
    assert.equal((await web.locator('.live-state').innerText()).trim(), 'live');
    await waitUntil(async () => /timeline: following agent-rollouts\.jsonl \(openhands-v1/.test(extensionHostLogs(e2e.server.userDataDir)), UI_MS,
      () => `no "timeline: following agent-rollouts.jsonl" in the extension's log:\n${extensionHostLogs(e2e.server.userDataDir).slice(-3000)}`);
  });

  it('lines appended while Follow is on appear, the newest step in view, the selection kept', async () => {
    const web = e2e.web();
    const count = web.locator('#step-count');
    // Select step 3, then turn Follow on.
    await web.locator('.step-card[data-index="2"]').click();
    await web.locator('.step-card[data-index="2"][aria-selected="true"]').waitFor({ timeout: UI_MS });
    await web.locator('button.follow-toggle').click();
    await web.locator('button.follow-toggle[aria-pressed="true"]').waitFor({ timeout: UI_MS });
    for (const upTo of [20, 34, 50, 70]) {
      // As an agent appends: one line at a time.
      for (; written < upTo; written++) fs.appendFileSync(file, toJsonl([all[written]]));
      const ids = stepsOf(written);
      await waitUntil(async () => new RegExp(`^${ids.length} steps`).test(await count.innerText()), UI_MS,
        async () => `after ${written} lines: #step-count "${await count.innerText()}", expected ${ids.length} steps`);
      const last = web.locator(`.step-card[data-index="${ids.length - 1}"]`);
      await waitUntil(async () => {
        const box = await last.boundingBox();
        const frame = await e2e.page.locator(`iframe.webview.ready`).first().boundingBox();
        return !!box && !!frame && box.y < frame.y + frame.height && box.y + box.height > frame.y;
      }, UI_MS, () => `the newest step #${ids.length} is not in view after ${written} lines`);
    }
    // The last call's command shows on its card (what the file holds).
    const lastCall = all.slice(0, written).filter((e) => e.kind === 'ActionEvent').at(-1);
    const lastIndex = stepsOf(written).indexOf(lastCall.id);
    assert.equal((await web.locator(`.step-card[data-index="${lastIndex}"] .action-command`).innerText()).trim(), lastCall.action.command);
    await screenshot(e2e.page, 'follow-appended');
    // Back at the top (a scroll of the page, not the user's: Follow stays on), step 3 is still the one selected.
    await web.locator('body').evaluate(() => window.scrollTo(0, 0));
    await web.locator('.step-card[data-index="2"][aria-selected="true"]').waitFor({ timeout: UI_MS });
    assert.equal(await web.locator('.step-card.selected').count(), 1);
  });

  it('a line written in two parts shows once its line break is written', async () => {
    const web = e2e.web();
    const count = web.locator('#step-count');
    const before = stepsOf(written).length;
    const line = toJsonl([all[written]]);
    assert.equal(all[written].kind, 'ActionEvent');
    const cut = Math.floor(line.length / 2);
    fs.appendFileSync(file, line.slice(0, cut));
    await new Promise((r) => setTimeout(r, 1500));
    assert.match(await count.innerText(), new RegExp(`^${before} steps`), 'half a line is held back');
    fs.appendFileSync(file, line.slice(cut));
    written++;
    await waitUntil(async () => new RegExp(`^${before + 1} steps`).test(await count.innerText()), UI_MS,
      async () => `#step-count "${await count.innerText()}", expected ${before + 1} steps`);
    assert.equal((await web.locator(`.step-card[data-index="${before}"] .action-command`).innerText()).trim(), all[written - 1].action.command);
  });

  it("the Rollouts view shows the followed file's step count as it grows", async () => {
    const { row, rowsText, open } = rolloutsPane(() => e2e.page);
    // The Rollouts view sits in the extension's own side bar container.
    await open();
    const description = async () => (await row('agent-rollouts.jsonl').locator('.label-description').first().innerText().catch(() => '')).trim();
    const expect = async (n: number) =>
      waitUntil(async () => (await description()).startsWith(`${n} steps`), UI_MS, async () => `the Rollouts view does not say ${n} steps: ${await rowsText()}`);
    await expect(stepsOf(written).length);
    assert.equal(all[written].kind, 'ObservationEvent');
    fs.appendFileSync(file, toJsonl(all.slice(written, written + 2)));
    written += 2;
    assert.equal(all[written - 1].kind, 'ActionEvent');
    await expect(stepsOf(written).length);
  });

  it('records how long an appended step takes to show (bench/results/follow.md cites it; no time is asserted)', async () => {
    const web = e2e.web();
    const latencies: number[] = [];
    for (; written < all.length; written++) {
      const ev = all[written];
      const steps = stepsOf(written + 1).length;
      const t0 = Date.now();
      fs.appendFileSync(file, toJsonl([ev]));
      if (ev.kind === 'ObservationEvent') continue;
      await web.locator('#step-count').filter({ hasText: new RegExp(`^${steps} steps`) }).waitFor({ timeout: UI_MS });
      latencies.push(Date.now() - t0);
      await new Promise((r) => setTimeout(r, 300)); // one append at a time, as an agent writes
    }
    assert.ok(latencies.length >= 5, `${latencies.length} steps appended`);
    fs.writeFileSync(path.join(ARTIFACTS, 'follow-latency.json'), JSON.stringify({ latenciesMs: latencies }, null, 1));
    console.log(`      appended line → step shown in code-server: ${latencies.join(', ')} ms`);
  });

  it('a file rewritten shorter is read again from the start; a deleted one keeps what was read and says so', async () => {
    const web = e2e.web();
    const count = web.locator('#step-count');
    fs.writeFileSync(file, toJsonl(all.slice(0, 8)));
    await waitUntil(async () => new RegExp(`^${stepsOf(8).length} steps`).test(await count.innerText()), UI_MS,
      async () => `after the rewrite: #step-count "${await count.innerText()}", expected ${stepsOf(8).length} steps`);
    await waitUntil(async () => /the file was (truncated|rewritten|replaced); reading it again/.test(extensionHostLogs(e2e.server.userDataDir)), UI_MS,
      () => `the extension's log does not say why the file was read again:\n${extensionHostLogs(e2e.server.userDataDir).slice(-2000)}`);
    fs.unlinkSync(file);
    await web.locator('.live-state', { hasText: 'file deleted' }).waitFor({ timeout: UI_MS });
    assert.match(await count.innerText(), new RegExp(`^${stepsOf(8).length} steps`), 'what was read stays');
    await screenshot(e2e.page, 'follow-deleted');
  });
});
