/**
 * e2e: a generated 200 MB asciicast v2 recording (bench/genCast.ts: 2.9 M events, ~4 h; every output
 * line carries the time it was printed) opened in the timeline in code-server. The player gets the
 * recording streamed (src/host/castStream.ts: no size cap, the file read once, windows and screen
 * snapshots): it shows the whole duration, a seek to the last minute with the seek bar's keys shows
 * the screen of that moment (the line printed then is the last one, nothing later), playing on from
 * there moves on through the following windows, and a seek back to the start shows the start.
 * Run through `npm run test:e2e` (scripts/e2e.mjs).
 *
 * Screenshot: .test-artifacts/e2e/cast-big-last-minute.png.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { GEN_EVENT_SECONDS, genCast, genEventLine, type GeneratedCast } from '../../bench/genCast';
import { assertNoCspOrHostErrors, e2eSuite, OPEN_MS, openTimeline, screenshot, UI_MS, waitUntil } from './harness';

const CAST_REL = 'recordings/big.cast';
const BYTES = 200 * 1024 * 1024;

/** `0:06.3`, `1:02:03.0`: the player's clock (webview/cast.ts formatClock). */
function clock(sec: number): string {
  const s = Math.max(0, sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const whole = Math.floor(s % 60);
  const ss = String(whole).padStart(2, '0');
  const frac = `.${Math.floor((s * 10) % 10)}`;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}${frac}` : `${m}:${ss}${frac}`;
}

/** Number of the last output line printed at or before `t` (the generated cast's events, read from the generator). */
function lastLineAt(t: number): number {
  let n = Math.floor(t / GEN_EVENT_SECONDS + 1e-6) - 1;
  while (n >= 0 && JSON.parse(genEventLine(n))[1] !== 'o') n--;
  return n;
}

describe('e2e: a 200 MB terminal recording in code-server', function () {
  this.timeout(600_000);

  let gen: GeneratedCast;
  let web: FrameLocator;
  const e2e = e2eSuite({
    name: 'cast-big',
    prepare: (workspace) => {
      gen = genCast(path.join(workspace, CAST_REL), BYTES);
    },
  });

  const player = (): ReturnType<FrameLocator['locator']> => web.locator('ti-player');
  const screenText = (): Promise<string> => web.locator('ti-player .xterm-rows').innerText();
  const time = async (): Promise<number> => Number(await player().getAttribute('data-time'));
  const synced = (): Promise<boolean> => player().evaluate((el) => (el as unknown as { synced: boolean }).synced);

  /** Waits until the player is synced at `ms` and shows line `n` as its newest line (a seek past what the host has read waits for the reading). */
  async function showsLine(ms: number, n: number): Promise<void> {
    await waitUntil(async () => (await time()) === ms && (await synced()) && new RegExp(`\\bline ${n}( |$)`, 'm').test(await screenText()), 180_000,
      async () => `expected line ${n} at ${ms} ms; the player is at ${await time()} ms (synced ${await synced()}), showing:\n${await screenText()}`);
    assert.ok(!new RegExp(`\\bline ${n + 1}( |$)`, 'm').test(await screenText()), `nothing after line ${n} on the screen`);
  }

  it('opens the recording: the player has the whole duration, no size note', async () => {
    web = await openTimeline(e2e.page, CAST_REL, OPEN_MS * 3);
    await web.locator('ti-player .xterm-rows').waitFor({ state: 'visible', timeout: OPEN_MS });
    await waitUntil(async () => (await web.locator('ti-player .clock .total').innerText()).includes(clock(gen.duration)), OPEN_MS,
      async () => `the player's total is ${await web.locator('ti-player .clock .total').innerText()}, not ${clock(gen.duration)}`);
    assert.equal(await web.locator('ti-player .note').count(), 0, 'no note (nothing cut)');
    assert.equal(await web.locator('ti-player .size').innerText(), '120×32');
  });

  it('seeks to the last minute with the seek bar and shows the screen of that moment', async () => {
    const seek = web.locator('ti-player input.seek-input');
    await seek.focus();
    await e2e.page.keyboard.press('End');
    // End, then back 40 s (Shift+← is 10 s): inside the last minute.
    for (let i = 0; i < 4; i++) await e2e.page.keyboard.press('Shift+ArrowLeft');
    const t = gen.duration - 40;
    const ms = Math.round(t * 1000);
    await showsLine(ms, lastLineAt(t));
    assert.match(await web.locator('ti-player .clock .now').innerText(), new RegExp(`^${clock(t).replace(/\./g, '\\.').slice(0, -1)}`));
    await e2e.page.waitForTimeout(300);
    await screenshot(e2e.page, 'cast-big-last-minute');
  });

  it('plays on from there through the following windows', async () => {
    const from = await time();
    await web.locator('ti-player select.speed').selectOption('4');
    await web.locator('ti-player button.play').click();
    await waitUntil(async () => (await time()) > from + 8000, UI_MS, async () => `the player did not play on from ${from} ms: ${await time()} ms`);
    await web.locator('ti-player button.play').click();
    await waitUntil(async () => (await player().getAttribute('data-state')) === 'paused' && (await synced()), UI_MS, () => 'the player did not pause');
    // Paused, the screen comes to show the line of the time it stopped at (xterm renders on a later
    // frame than the write). data-time is the player's time rounded to the millisecond: paused just
    // before an event's time, it reads as that time while the event is not played yet, so the line
    // before it is right too.
    let at = 0;
    const expected = (t: number) => [...new Set([lastLineAt(t), lastLineAt(t - 0.001)])];
    await waitUntil(async () => {
      at = (await time()) / 1000;
      return new RegExp(`\\bline (${expected(at).join('|')})( |$)`, 'm').test(await screenText());
    }, UI_MS, async () => `the screen at ${at} s shows none of lines ${expected(at).join(', ')}: ${(await screenText()).split('\n').slice(-3).join(' | ')}`);
  });

  it('seeks back to the start', async () => {
    const seek = web.locator('ti-player input.seek-input');
    await seek.focus();
    await e2e.page.keyboard.press('Home');
    await e2e.page.keyboard.press('ArrowRight');
    await showsLine(1000, lastLineAt(1));
  });

  it('the webview broke no CSP rule and the extension host logged no errors', () => {
    assertNoCspOrHostErrors(e2e.consoleLog, e2e.server);
  });
});
