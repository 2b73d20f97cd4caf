/**
 * The exported HTML page (src/shared/exportHtml.ts) opened in Chromium from a file, as a colleague
 * opens it: the steps of a real rollout show, payloads planted in its texts are shown as text and
 * never run, nothing breaks the page's CSP, nothing is fetched, and ANSI colours show as colours.
 */
import { sha256Base64 } from '../../src/core/export/sha256';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { loadFile } from '../../src/core/load';
import { redactRollout } from '../../src/core/export/redact';
import { rolloutHtml } from '../../src/shared/exportHtml';
import { sample } from '../unit/samples';
import { ARTIFACTS, launchChromium } from './harness';

const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const PAYLOADS = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '"><svg onload="window.__pwned=3">',
  '<iframe src="javascript:window.__pwned=4"></iframe>',
  '<a href="javascript:window.__pwned=5">click</a>',
  '<style>body{display:none}</style>',
  '<link rel=stylesheet href="http://127.0.0.1:9/x.css">',
  '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">',
];

describe('webview tier: the exported HTML page in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  it('shows every step of a real rollout with its payloads as text: no script runs, no CSP violation, no request', async () => {
    const r = (await loadFile(sample(SWE))).rollouts[0];
    // Payloads in the message, a command, an output (with ANSI colours) and the task.
    const planted = {
      ...r,
      task: { ...r.task, instruction: `${r.task.instruction ?? ''}\n${PAYLOADS.join('\n')}` },
      steps: r.steps.map((s, i) =>
        i === 1
          ? {
              ...s,
              message: `${s.message}\n${PAYLOADS.join('\n')}`,
              actions: [...s.actions, { kind: 'shell' as const, command: PAYLOADS[1], tool: null, callId: null }],
              observations: [...s.observations, { callId: null, output: `\x1b[31mred error\x1b[0m ${PAYLOADS[0]} token 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`, exitCode: 1, truncated: false }],
            }
          : s,
      ),
    };
    const red = await redactRollout(planted);
    const html = rolloutHtml(red.rollout, { sha256: sha256Base64, sourceName: path.basename(SWE), scores: new Map([[1, 0.1], [2, 0.9]]), labels: new Map([[1, -1 as const]]), footer: `redacted: ${red.total}` });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'export-html-')), 'rollout.html');
    fs.writeFileSync(file, html);
    fs.copyFileSync(file, path.join(ARTIFACTS, 'export.html'));

    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => problems.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
    page.on('request', (q) => q.url() !== `file://${file}` && requests.push(q.url()));
    await page.goto(`file://${file}`);
    await page.waitForSelector('article#step-1');

    assert.equal(await page.locator('main article').count(), r.steps.length, 'one card per step');
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned ?? null), null, 'no payload ran');
    assert.equal(await page.locator('main script, main img, main svg, main iframe, main a[href^="javascript"], main link, main meta, main style').count(), 0, 'no element came from the rollout');
    const text = await page.locator('article#step-2').innerText();
    for (const p of PAYLOADS.slice(0, 3)) assert.ok(text.includes(p), `payload shown as text: ${p}`);
    assert.ok(!text.includes('ghp_wWPw5k4a'), 'the token is redacted');
    assert.match(text, /\[REDACTED:github[a-z-]*\]/);
    assert.match(text, /score 0\.10/);
    assert.match(text, /label −1 bad/);
    // The ANSI red shows red, through the page's own stylesheet (allowed by its hash).
    const red0 = await page.locator('article#step-2 .ansi-red').first().evaluate((e) => (globalThis as any).getComputedStyle(e).color);
    assert.equal(red0, 'rgb(205, 49, 49)');
    assert.notEqual(await page.locator('body').evaluate((e) => (globalThis as any).getComputedStyle(e).display), 'none');
    assert.deepEqual(problems.filter((p) => /Content Security Policy|Refused|error|dialog/i.test(p)), [], 'no CSP violation, error or dialog');
    assert.deepEqual(requests, [], 'the page fetched nothing');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-html.png'), fullPage: false });
    await page.close();
  });
});
