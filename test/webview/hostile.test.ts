/**
 * Webview tier, untrusted input (issue 18 items 1 and 8): a recording with absurd escape counts plays
 * in bounded time, an OSC 8 hyperlink posts `openUrl` to the host instead of xterm's confirm() and
 * window.open, and a 2.5 KB agent / model name does not widen the header or the cards. The recording
 * is generated here; it is read by core `loadFile` and the host's `readCastMessage`, as in VS Code.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadFile, type LoadedFile } from '../../src/core/load';
import { readCastMessage } from '../../src/host/castFile';
import { rolloutMessage } from '../../src/host/rolloutMessage';
import { LoadedSource } from '../../src/host/rolloutSource';
import { finishPage, launchChromium, postToWebview, sent, startHarness, waitForReady, watchProblems, type Harness, type PageProblems } from './harness';

declare const window: any;
declare const document: any;

const CONFIG = { collapseOutputLines: 20 };
const HOSTILE = ['\x1b[2147483647S', '\x1b[2147483647T', '\x1b[2147483647L', '\x1b[2147483647M', 'x\x1b[2147483647b'];

/** A v2 cast: markers (one step each), hostile sequences, then a hyperlink and a last line. */
function hostileCast(dir: string, width = 80, height = 24): string {
  const lines = [JSON.stringify({ version: 2, width, height })];
  let t = 0;
  lines.push(JSON.stringify([(t += 0.1), 'm', 'start']));
  for (let i = 0; i < 40; i++) lines.push(JSON.stringify([(t += 0.01), 'o', `noise ${i} ${HOSTILE[i % HOSTILE.length]}\r\n`]));
  lines.push(JSON.stringify([(t += 0.1), 'm', 'link']));
  lines.push(JSON.stringify([(t += 0.1), 'o', '\x1b[2J\x1b[Hsee \x1b]8;;https://example.com/docs\x07THE-LINK\x1b]8;;\x07 here\r\ngood after\r\n']));
  const f = path.join(dir, 'hostile.cast');
  fs.writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

describe('webview: untrusted recordings and headers', function () {
  this.timeout(120_000);
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-webview-hostile-'));
    harness = await startHarness();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async function () {
    await finishPage(this, page, problems);
  });

  async function open(): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    problems = watchProblems(p);
    await p.goto(harness.url);
    await waitForReady(p);
    return p;
  }

  async function show(p: Page, file: LoadedFile): Promise<void> {
    const r = file.rollouts[0];
    await postToWebview(p, rolloutMessage(new LoadedSource(file), 0, null, CONFIG));
    await p.locator('.step-card').first().waitFor();
    await p.waitForFunction(() => (window.__sent as { type: string }[]).some((m) => m.type === 'loadCast'));
    await postToWebview(p, await readCastMessage(0, r.id, r.recording!.path));
    await p.locator('ti-player .xterm-rows').waitFor({ state: 'attached' });
  }

  async function waitSynced(p: Page, text: string): Promise<string> {
    const end = Date.now() + 20_000;
    for (;;) {
      const synced = await p.evaluate(() => document.querySelector('ti-app').shadowRoot.querySelector('ti-player').synced);
      const rows = (await p.locator('ti-player .xterm-rows > div').allTextContents()).join('\n');
      if (synced && rows.includes(text)) return rows;
      if (Date.now() > end) throw new Error(`the player did not show ${JSON.stringify(text)} within 20 s; it shows:\n${rows}`);
      await p.waitForTimeout(50);
    }
  }

  it('plays absurd escape counts to the end in bounded time; a hyperlink posts openUrl, never confirm() or window.open', async () => {
    const file = await loadFile(hostileCast(dir));
    page = await open();
    await page.evaluate(() => {
      window.__opened = [];
      window.confirm = (m: string) => (window.__opened.push(`confirm ${m}`), true);
      window.open = (u: string) => (window.__opened.push(`open ${u}`), null);
    });
    await show(page, file);
    const t0 = Date.now();
    await page.evaluate(() => {
      const player = document.querySelector('ti-app').shadowRoot.querySelector('ti-player');
      player.seek(player.duration);
    });
    await waitSynced(page, 'good after');
    console.log(`      (played to the end in ${Date.now() - t0} ms)`);
    // Click the link text: xterm reports OSC 8 links under the pointer.
    const row = page.locator('ti-player .xterm-rows > div', { hasText: 'THE-LINK' }).first();
    const box = (await row.boundingBox())!;
    const cellW = box.width / 80;
    const x = box.x + cellW * 6.5;
    const y = box.y + box.height / 2;
    await page.mouse.move(x - 2, y);
    await page.mouse.move(x, y);
    await page.waitForTimeout(200);
    await page.mouse.click(x, y);
    await page.waitForFunction(() => (window.__sent as { type: string }[]).some((m) => m.type === 'openUrl'), undefined, { timeout: 10_000 });
    const msgs = (await sent(page)).filter((m) => m.type === 'openUrl');
    assert.deepEqual(msgs, [{ type: 'openUrl', url: 'https://example.com/docs' }]);
    assert.deepEqual(await page.evaluate(() => window.__opened), []);
  });

  it('a 10000×10000 header plays at 500×200 and says so', async () => {
    const file = await loadFile(hostileCast(fs.mkdtempSync(path.join(dir, 'big-')), 10000, 10000));
    page = await open();
    await show(page, file);
    assert.equal(await page.locator('ti-player .size').innerText(), '500×200');
    assert.equal(await page.locator('ti-player .xterm-rows > div').count(), 200);
    assert.match(await page.locator('ti-player .note').innerText(), /asks for a 10000×10000 terminal; the player shows at most 500×200/);
  });

  it('a 2.5 KB agent and model name is cut with an ellipsis (whole in its title); header and cards stay in the window', async () => {
    const file = await loadFile(hostileCast(fs.mkdtempSync(path.join(dir, 'names-'))));
    const long = 'agent-' + 'x'.repeat(2500);
    file.rollouts[0].agent = { name: long, version: null, model: 'model-' + 'y'.repeat(2500) };
    page = await open();
    await postToWebview(page, rolloutMessage(new LoadedSource(file), 0, null, CONFIG));
    await page.locator('.step-card').first().waitFor();
    const width = await page.evaluate(() => window.innerWidth);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width, 'no horizontal scroll');
    for (const sel of ['header', '.step-card', '.meta-row .model', '.meta-row .agent']) {
      const b = (await page.locator(sel).first().boundingBox())!;
      assert.ok(b.x + b.width <= width + 1, `${sel} ends at ${b.x + b.width} px, the window is ${width} px`);
    }
    assert.equal(await page.locator('.meta-row .model').getAttribute('title'), 'model-' + 'y'.repeat(2500));
  });
});
