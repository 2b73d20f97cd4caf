/**
 * Webview tier, live follow (issue 13): a session file being written, read by the real core
 * follower (JsonlFollower over the OpenHands V1 events stream) and posted the way TimelinePanel
 * posts it (`rollout` with `live`, then `rolloutUpdate` built by StepSlices.update and
 * rolloutUpdateMessage). Appended steps keep the selection, the expanded cards, the scroll position
 * and the labels; a changed step is replaced in place; Follow keeps the newest step in view and
 * stops when the user scrolls up.
 *
 * Input: sessions made of the real event shapes of the OpenHands software-agent-sdk fixture
 * conversation (test/unit/v1Session.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { JsonlFollower } from '../../src/core/follow';
import { rolloutMessage, rolloutUpdateMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import { StepSlices } from '../../src/host/stepSlices';
import type { LabelsMessage, LiveInfo } from '../../src/shared/protocol';
import { tmpDir } from '../unit/samples';
import { session, toJsonl } from '../unit/v1Session';
import { ARTIFACTS, postToWebview, sent, webviewSuite } from './harness';
import { postJson, serveSlices } from './sliceHost';

declare const window: any;
declare const document: any;

const CONFIG = { collapseOutputLines: 20 };

/** The host's side: the file, its follower, and what TimelinePanel posts for it. */
class FollowHost {
  readonly slices: StepSlices;
  sentSteps = 0;
  private constructor(
    readonly page: Page,
    readonly file: string,
    readonly follower: JsonlFollower,
    minChars?: number,
  ) {
    this.slices = new StepSlices(minChars);
  }
  /** Follows `file` (posts nothing yet). */
  static async follow(page: Page, file: string, minChars?: number): Promise<FollowHost> {
    const f = await JsonlFollower.open(file);
    assert.ok(f, 'the file is followed');
    return new FollowHost(page, file, f, minChars);
  }
  static async open(page: Page, file: string, minChars?: number): Promise<FollowHost> {
    const h = await FollowHost.follow(page, file, minChars);
    await h.present();
    return h;
  }
  /** Posts the `rollout` message, as sendCurrent does. */
  async present(): Promise<void> {
    const f = this.follower;
    await postJson(this.page, rolloutMessage(new LoadedSource(f.loaded), 0, null, CONFIG, { slices: this.slices, live: this.live() }));
    this.sentSteps = f.loaded.rollouts[0].steps.length;
  }
  live(): LiveInfo {
    const f = this.follower;
    return { mode: 'stream', state: f.caughtUp ? 'live' : 'reading', bytes: f.bytesRead, size: f.fileSize };
  }
  /** Appends `text` to the file, reads it and posts the update (as postChanges does). */
  async append(text: string): Promise<void> {
    fs.appendFileSync(this.file, text);
    const r = await this.follower.read();
    assert.equal(r.kind, 'update');
    if (r.kind !== 'update') return;
    const rollout = this.follower.loaded.rollouts[0];
    const from = Math.min(r.changes[0].changedFrom, this.sentSteps);
    await postJson(this.page, rolloutUpdateMessage(new LoadedSource(this.follower.loaded), 0, from, this.slices.update(rollout, from), this.live()));
    this.sentSteps = rollout.steps.length;
  }
}

describe('webview: live follow (issue 13)', function () {
  this.timeout(120_000);
  const wv = webviewSuite({ prefix: 'follow-', dialogs: true });
  let page: Page;

  async function open(): Promise<Page> {
    const p = await wv.open({ width: 1100, height: 800 });
    return p;
  }

  const card = (i: number) => page.locator(`.step-card[data-index="${i}"]`);
  const stepCount = () => page.locator('#step-count').innerText();
  const followButton = () => page.locator('button.follow-toggle');
  /** Whether card `i` is rendered and (partly) inside the viewport. */
  const inView = (i: number) =>
    page.evaluate((k) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${k}"]`);
      if (!c) return false;
      const r = c.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    }, i);

  /** The session's first lines in a file: system prompt, user message, `calls` terminal calls. */
  function startFile(all: any[], lines: number): string {
    const file = path.join(tmpDir(), 'events.jsonl');
    fs.writeFileSync(file, toJsonl(all.slice(0, lines)));
    return file;
  }

  it('appended steps keep the selection, expanded cards, scroll position and labels; a changed step is replaced in place', async () => {
    const all = session(60);
    page = await open();
    // Lines up to act-4's observation; act-5 / act-6 are parallel calls (their observations come after both).
    const upTo = all.findIndex((e) => e.id === 'obs-4') + 1;
    const host = await FollowHost.open(page, startFile(all, upTo));
    const n0 = host.follower.loaded.rollouts[0].steps.length;
    assert.equal(n0, 2 + 5);
    await page.locator('#step-count').getByText(`${n0} steps`).waitFor();
    assert.equal(await followButton().getAttribute('aria-pressed'), 'false', 'Follow is off when a rollout opens');
    assert.equal((await page.locator('.live-state').innerText()).trim(), 'live');
    const id = host.follower.loaded.rollouts[0].id;
    // Step 4 selected and expanded, step 2 labelled bad.
    await postToWebview(page, { type: 'revealStep', index: 4 });
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card.selected')?.getAttribute('data-index') === '4');
    await page.keyboard.press('o');
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('.step-card[data-index="4"]')?.classList.contains('expanded'));
    const labels: LabelsMessage = {
      type: 'labels',
      rolloutIndex: 0,
      rolloutId: id,
      annotator: 'me',
      labels: [{ rolloutId: id, stepIndex: 2, value: -1, firstError: false, note: 'wrong dir', annotator: 'me', time: '2026-01-01T00:00:00Z', origin: 'manual', stale: false }],
      unsaved: [],
      journal: '/tmp/x.labels.jsonl',
      error: null,
      warnings: [],
      seq: null,
    };
    await postToWebview(page, labels);
    await card(2).locator('.card.lab-bad').waitFor();
    await page.evaluate(() => window.scrollTo(0, 120));
    const y0 = await page.evaluate(() => window.scrollY);
    const posted = (await sent(page)).length;

    // act-5, act-6 (parallel), then the observation of act-5: it joins step 7, which is not the last.
    const at5 = all.findIndex((e) => e.id === 'act-5');
    await host.append(toJsonl(all.slice(upTo, at5 + 2)));
    await page.locator('#step-count').getByText(`${n0 + 2} steps`).waitFor();
    assert.equal(await card(7).locator('pre.output').count(), 0, 'act-5 has no output yet');
    await host.append(toJsonl([all[at5 + 2]]));
    await card(7).locator('pre.output').getByText('café 日本 🦀 5').waitFor();
    assert.equal(await card(8).locator('pre.output').count(), 0);
    // Then twenty more calls.
    await host.append(toJsonl(all.slice(at5 + 3, at5 + 3 + 41)));
    const n1 = host.follower.loaded.rollouts[0].steps.length;
    assert.equal(n1, n0 + 22);
    await page.locator('#step-count').getByText(`${n1} steps`).waitFor();
    assert.equal(await card(4).getAttribute('aria-selected'), 'true', 'the selection stays');
    assert.match((await card(4).getAttribute('class')) ?? '', /\bexpanded\b/);
    assert.equal(await card(2).locator('.card.lab-bad').count(), 1, 'the label stays on its step');
    assert.equal(await page.evaluate(() => window.scrollY), y0, 'the scroll position stays');
    assert.ok(!(await inView(n1 - 1)), 'not following: the newest step is not brought into view');
    assert.match(await followButton().innerText(), /Follow\s+· 22 new/);
    // Nothing was asked of the host for the updates (no reload, no resend).
    assert.deepEqual((await sent(page)).slice(posted).filter((m) => m.type !== 'stepSelected'), []);
    assert.match(await stepCount(), new RegExp(`^${n1} steps`));
  });

  it('Follow keeps the newest step in view as lines are appended, and stops when the user scrolls up', async () => {
    const all = session(80);
    page = await open();
    const host = await FollowHost.open(page, startFile(all, 30));
    let n = host.follower.loaded.rollouts[0].steps.length;
    await page.locator('#step-count').getByText(`${n} steps`).waitFor();
    await followButton().click();
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('button.follow-toggle')?.getAttribute('aria-pressed') === 'true');
    await page.waitForFunction((k) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${k}"]`);
      return !!c && c.getBoundingClientRect().bottom <= window.innerHeight && c.getBoundingClientRect().bottom > 0;
    }, n - 1);
    for (let at = 30; at < 110; at += 16) {
      await host.append(toJsonl(all.slice(at, at + 16)));
      n = host.follower.loaded.rollouts[0].steps.length;
      await page.locator('#step-count').getByText(`${n} steps`).waitFor();
      await page.waitForFunction((k) => {
        const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${k}"]`);
        return !!c && c.getBoundingClientRect().top < window.innerHeight && c.getBoundingClientRect().bottom > 0;
      }, n - 1);
    }
    assert.equal(n, host.follower.loaded.rollouts[0].steps.length);
    assert.equal(host.follower.loaded.rollouts[0].steps[n - 1].sourceId, all[109].kind === "ActionEvent" ? all[109].id : all[108].id);
    await page.screenshot({ path: path.join(ARTIFACTS, 'follow-following.png') });
    await page.locator('.dock').screenshot({ path: path.join(ARTIFACTS, 'follow-dock.png') });
    // Persisted with the view.
    assert.equal(await page.evaluate(() => window.__state.follow), true);
    // The user scrolls up: Follow stops, the next lines do not move the view.
    await page.mouse.move(500, 400);
    await page.mouse.wheel(0, -1500);
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('button.follow-toggle')?.getAttribute('aria-pressed') === 'false');
    const y = await page.evaluate(() => window.scrollY);
    await host.append(toJsonl(all.slice(110, 130)));
    n = host.follower.loaded.rollouts[0].steps.length;
    await page.locator('#step-count').getByText(`${n} steps`).waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.scrollY), y);
    assert.ok(!(await inView(n - 1)));
    assert.equal(await page.evaluate(() => window.__state.follow), undefined);
    // End goes to the newest step and starts Follow again.
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('button.follow-toggle')?.getAttribute('aria-pressed') === 'true');
    // The Toggle Follow command (followAction) stops it.
    await postToWebview(page, { type: 'toggleFollow' });
    await page.waitForFunction(() => document.querySelector('ti-app')?.shadowRoot?.querySelector('button.follow-toggle')?.getAttribute('aria-pressed') === 'false');
  });

  it('a rollout that grows past the slicing size while followed goes on as heads, fetched as they come into view', async () => {
    const all = session(200);
    page = await open();
    const host = await FollowHost.follow(page, startFile(all, 12), 20_000);
    // The slice host answers from the follower's rollout as it is at each request.
    const slice = await serveSlices(page, host.follower.loaded.rollouts[0]);
    await host.present();
    assert.equal(await page.locator('.sliced').count(), 0, 'small at first: sent whole');
    await followButton().click();
    await host.append(toJsonl(all.slice(12)));
    slice.rollout = host.follower.loaded.rollouts[0];
    const n = slice.rollout.steps.length;
    await page.locator('#step-count').getByText(`${n} steps`).waitFor();
    await page.locator('.sliced').waitFor();
    // The newest cards are in view and get their full steps from slices.
    await page.waitForFunction((k) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`.step-card[data-index="${k}"]`);
      return !!c && !c.classList.contains('loading') && c.getBoundingClientRect().top < window.innerHeight;
    }, n - 1, { timeout: 20_000 });
    assert.ok(slice.requests.length > 0, 'the sliced steps were asked for');
    assert.ok(slice.requests.every((r) => r.from >= 12), `steps sent whole are never asked for: ${JSON.stringify(slice.requests.map((r) => r.from))}`);
    assert.equal(host.follower.loaded.rollouts[0].steps[n - 3].sourceId, 'act-199');
    await card(n - 3).locator('pre.output').getByText('café 日本 🦀 199').waitFor();
    assert.match((await card(n - 3).locator('.action-command').innerText()).trim(), /^echo "café 日本 🦀 199"$/);
  });
});
