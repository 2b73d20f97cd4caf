/**
 * Webview test harness: serves the built webview bundle in the same HTML shell and CSP the
 * extension uses (webviewHtml.ts `timelineHtml`), with a fake `acquireVsCodeApi` that records what
 * the webview posts, and drives it in Debian's Chromium through playwright-core.
 *
 * No VS Code: the host side is the test, which posts the messages the host would post.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makeNonce, timelineHtml } from '../../src/host/webviewHtml';
import type { HostMessage, WebviewMessage } from '../../src/shared/protocol';
import { WAIT_MS } from '../wait';

// page.evaluate callbacks run in Chromium; this program is type-checked without the DOM lib.
declare const window: any;

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const ARTIFACTS = path.join(REPO_ROOT, '.test-artifacts', 'webview');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const BUNDLE = process.env.WEBVIEW_BUNDLE ?? path.join(REPO_ROOT, 'dist', 'webview.js');

/** The files a harness page loads besides its bundle. */
const FILES: Record<string, { file: string; type: string }> = {
  '/media/timeline.css': { file: path.join(REPO_ROOT, 'media', 'timeline.css'), type: 'text/css' },
  '/test/theme-dark.css': { file: path.join(__dirname, 'theme-dark.css'), type: 'text/css' },
};

/** What the extension's HTML shell of a webview is built from (webviewHtml.ts `timelineHtml`, compareView.ts `compareHtml`). */
export interface ShellParams {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export interface HarnessOptions {
  /** The page's bundle (default BUNDLE, the timeline's), served as /dist/<its name>. */
  bundle?: string;
  /** The extension's HTML shell for it (default `timelineHtml`). */
  shell?: (p: ShellParams) => string;
}

/** The fake host API, installed before the bundle runs (an inline script allowed by the nonce). */
function fakeApiScript(nonce: string, initialState: unknown): string {
  return `<script nonce="${nonce}">
  window.__sent = [];
  window.__csp = [];
  window.__state = ${JSON.stringify(initialState ?? null)};
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || ''));
  });
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi may be called only once');
    acquired = true;
    return {
      postMessage: (m) => window.__sent.push(JSON.parse(JSON.stringify(m))),
      getState: () => window.__state ?? undefined,
      setState: (s) => { window.__state = JSON.parse(JSON.stringify(s)); },
    };
  };
</script>`;
}

export interface Harness {
  url: string;
  close(): Promise<void>;
  /** Sets the state `getState()` returns on the next page load (null: none). */
  setInitialState(state: unknown): void;
}

/**
 * Starts the static server for the harness page and its resources on 127.0.0.1: the extension's
 * HTML shell of a webview (the timeline's, or `o.shell` for `o.bundle`) with its CSP, the dark
 * theme's variables and the fake `acquireVsCodeApi`.
 */
export async function startHarness(o: HarnessOptions = {}): Promise<Harness> {
  const bundle = o.bundle ?? BUNDLE;
  const shell = o.shell ?? timelineHtml;
  if (!fs.existsSync(bundle)) throw new Error(`webview bundle missing: ${bundle} (run \`npm run build\`)`);
  const bundlePath = `/dist/${path.basename(bundle)}`;
  let initialState: unknown = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const origin = `http://${req.headers.host}`;
    if (url.pathname === '/') {
      const nonce = makeNonce();
      let page = shell({
        cspSource: origin,
        nonce,
        scriptUri: `${origin}${bundlePath}`,
        styleUri: `${origin}/media/timeline.css`,
      });
      // The theme stands in for the variables VS Code injects; the fake API for acquireVsCodeApi.
      page = page.replace(
        '<title>',
        `<link rel="stylesheet" href="${origin}/test/theme-dark.css" nonce="${nonce}">\n${fakeApiScript(nonce, initialState)}\n<title>`,
      );
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page);
      return;
    }
    const f = url.pathname === bundlePath ? { file: bundle, type: 'text/javascript' } : FILES[url.pathname];
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    if (!f) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': f.type, 'cache-control': 'no-store' });
    fs.createReadStream(f.file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    setInitialState: (s) => {
      initialState = s;
    },
  };
}

/** Launches Debian's Chromium. Fails (never skips) when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium, or scripts/setup-test-env.sh) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Page errors, console errors and alerts seen on a page (all must stay empty). */
export interface PageProblems {
  errors: string[];
  dialogs: string[];
}

export function watchProblems(page: Page): PageProblems {
  const p: PageProblems = { errors: [], dialogs: [] };
  page.on('pageerror', (e) => p.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') p.errors.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    p.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return p;
}

/** Messages the webview has posted to the (fake) host so far. */
export function sent(page: Page): Promise<WebviewMessage[]> {
  return page.evaluate(() => window.__sent as WebviewMessage[]);
}

/** CSP violations reported on the page. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => window.__csp as string[]);
}

/** Posts a host → webview message the way VS Code delivers it (a window message event). */
export async function postToWebview(page: Page, msg: HostMessage): Promise<void> {
  await page.evaluate((m) => window.postMessage(m, '*'), msg);
}

/** Waits for the webview's `ready` handshake. */
export async function waitForReady(page: Page): Promise<void> {
  await page.waitForFunction(() => (window.__sent as { type: string }[]).some((m) => m.type === 'ready'));
}

/**
 * The end of a webview test (call from `afterEach` with mocha's context): a failed test leaves a
 * screenshot `FAILED-<prefix><title>.png` (or `FAILED-<prefix>.png` when `perTest` is false) in
 * ARTIFACTS; a passed one must have logged no page error, violated no CSP rule and, when
 * `dialogs` is set, opened no dialog. Closes the page either way.
 */
export async function finishPage(
  ctx: Mocha.Context,
  page: Page | undefined,
  problems: PageProblems,
  o: { prefix?: string; perTest?: boolean; dialogs?: boolean } = {},
): Promise<void> {
  if (!page) return;
  if (ctx.currentTest?.state === 'failed') {
    const name = o.perTest === false ? '' : (ctx.currentTest.title ?? 'test').replace(/[^a-z0-9]+/gi, '-').toLowerCase();
    const file = `FAILED-${o.prefix ?? ''}${name}`.replace(/-$/, '');
    await page.screenshot({ path: path.join(ARTIFACTS, `${file}.png`) }).catch(() => undefined);
  } else {
    assert.deepEqual(problems.errors, [], 'the page logged errors');
    if (o.dialogs) assert.deepEqual(problems.dialogs, [], 'the page opened a dialog');
    assert.deepEqual(await cspViolations(page), [], 'the page violated its CSP');
  }
  await page.close();
}

/** The webview config the tests post with a rollout (what the host reads from the settings). */
export const TEST_CONFIG = { collapseOutputLines: 20 };

/** What a webview suite's hooks set up (read inside hooks and tests). */
export interface WebviewSuite {
  readonly harness: Harness;
  readonly browser: Browser;
  /** Problems of the page `open` opened last. */
  readonly problems: PageProblems;
  /**
   * Opens a fresh harness page (viewport `size`, default 1100×900) and waits for the ready
   * handshake; `afterEach` finishes it (finishPage) unless the test closed it. Playwright's default wait is WAIT_MS here.
   */
  open(size?: { width: number; height: number }): Promise<Page>;
}

/**
 * Registers the hooks every webview suite shares (call it at the top of a `describe`): `before`
 * starts the harness server and Chromium, `afterEach` runs `beforeFinish` and then finishes each
 * page `open` opened in the test and the test left open (finishPage with `o`), `after` closes both.
 */
export function webviewSuite(o: { prefix?: string; perTest?: boolean; dialogs?: boolean; beforeFinish?: () => Promise<void> } = {}): WebviewSuite {
  let harness: Harness | undefined;
  let browser: Browser | undefined;
  /** The pages `open` opened in the current test, the last one last. */
  let opened: { page: Page; problems: PageProblems }[] = [];
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the webview suite has no ${what} yet (read it inside a hook or a test)`);
    return v;
  };
  before(async () => {
    harness = await startHarness();
    browser = await launchChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterEach(async function () {
    await o.beforeFinish?.();
    const pages = opened;
    opened = [];
    // A page the test closed itself has nothing left to check.
    for (const p of pages) if (!p.page.isClosed()) await finishPage(this, p.page, p.problems, o);
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
  });
  return {
    get harness() { return need(harness, 'harness'); },
    get browser() { return need(browser, 'browser'); },
    get problems() { return need(opened[opened.length - 1], 'page').problems; },
    async open(size = { width: 1100, height: 900 }) {
      const page = await need(browser, 'browser').newPage({ viewport: size });
      page.setDefaultTimeout(WAIT_MS);
      opened.push({ page, problems: watchProblems(page) });
      await page.goto(need(harness, 'harness').url);
      await waitForReady(page);
      return page;
    },
  };
}
