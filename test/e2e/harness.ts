/**
 * e2e harness: the packaged extension inside a real code-server, driven by Playwright in Chromium.
 * Recipe: ../shared/docs/TESTING.md and docs/reference/style.md §3.4.
 *
 * Everything lives in one temp dir (extensions, user data, config, workspace) that `dispose()`
 * removes; code-server runs in its own process group so its children die with it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page, type FrameLocator, type Locator } from 'playwright-core';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const SAMPLES_DIR = process.env.SAMPLES_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'samples');
export const ARTIFACTS = path.join(REPO_ROOT, '.test-artifacts', 'e2e');
export const EXTENSION_ID = 'trajectory-inspector.trajectory-inspector';

/** An env var that scripts/e2e.mjs sets; a missing one fails the run (never a skip). */
export function requiredEnv(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e tier with \`npm run test:e2e\` (scripts/e2e.mjs)`);
  return v;
}

export function sample(rel: string): string {
  const p = path.join(SAMPLES_DIR, rel);
  if (!fs.existsSync(p)) throw new Error(`sample missing: ${p} (set SAMPLES_DIR or check ../shared/samples)`);
  return p;
}

/** Settings that keep the workbench quiet and offline: no welcome page, no update/gallery checks. */
export const SEEDED_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.commandCenter.enabled': false,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
};

// Process groups to kill if the test process dies without running its hooks.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

export interface CodeServer {
  url: string;
  tmp: string;
  userDataDir: string;
  extensionsDir: string;
  /** Everything code-server printed so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  bin: string;
  vsix: string;
  workspace: string;
  tmp: string;
  settings?: Record<string, unknown>;
  /** Environment variables for code-server and its extension host (e.g. a fake HOME), on top of this process's. */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try { process.kill(-child.pid, signal); } catch { /* already gone */ }
}

/** Installs the .vsix into a private extensions dir and starts code-server on 127.0.0.1 (a free port). */
export async function startCodeServer(o: StartOptions): Promise<CodeServer> {
  const userDataDir = path.join(o.tmp, 'user-data');
  const extensionsDir = path.join(o.tmp, 'extensions');
  const config = path.join(o.tmp, 'config.yaml');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...SEEDED_SETTINGS, ...o.settings }, null, 2));
  fs.writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  const env = { ...process.env, ...o.env };
  delete env.PORT; // code-server lets $PORT override --bind-addr's port
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;
  const common = ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  const inst = spawnSync(o.bin, [...common, '--install-extension', o.vsix],
    { encoding: 'utf8', env, timeout: 180_000 });
  const instOut = `${inst.stdout ?? ''}${inst.stderr ?? ''}`;
  const installedDir = fs.readdirSync(extensionsDir).find((d) => d.startsWith(`${EXTENSION_ID}-`));
  if (inst.status !== 0 || !installedDir) {
    throw new Error(`code-server --install-extension ${o.vsix} failed (exit ${inst.status ?? inst.signal}, `
      + `extensions dir: ${JSON.stringify(fs.readdirSync(extensionsDir))}):\n${instOut}`);
  }

  let out = '';
  const child = spawn(o.bin, [
    ...common,
    '--auth', 'none', '--bind-addr', '127.0.0.1:0',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--ignore-last-opened',
    o.workspace,
  ], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid !== undefined) liveGroups.add(child.pid);
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGTERM');
      const t = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    killGroup(child, 'SIGKILL'); // stragglers in the group (extension host, pty host)
    if (child.pid !== undefined) liveGroups.delete(child.pid);
  };

  const timeoutMs = o.startTimeoutMs ?? 90_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`code-server did not report "HTTP server listening" within ${timeoutMs / 1000} s`)), timeoutMs);
    const onData = () => {
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) done(undefined, m[1]);
    };
    const onExit = (code: number | null, sig: string | null) => done(new Error(`code-server exited early (code ${code}, signal ${sig})`));
    function done(err?: Error, u?: string) {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err); else resolve(u!);
    }
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  }).catch(async (e: Error) => {
    await stop();
    throw new Error(`${e.message}\n--- code-server output ---\n${out}\n--- end ---`);
  });

  return { url, tmp: o.tmp, userDataDir, extensionsDir, log: () => out, stop };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
];

export async function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
}

/** Opens the workbench on a folder and waits for `div.monaco-workbench`, reloading if needed. */
export async function openWorkbench(page: Page, baseUrl: string, folder: string): Promise<void> {
  const url = `${baseUrl}/?folder=${encodeURIComponent(folder)}`;
  let lastErr: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      if (attempt === 1) await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      else await page.reload({ waitUntil: 'domcontentloaded', timeout: 60_000 });
      await page.locator('div.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
      // The explorer has rendered the folder once a list row shows up.
      await page.locator('[id="workbench.parts.sidebar"] .monaco-list-row').first().waitFor({ state: 'visible', timeout: 60_000 });
      return;
    } catch (e) {
      lastErr = e;
    }
  }
  throw new Error(`the workbench did not appear at ${url}: ${String(lastErr)}`);
}

/** Opens a workspace-relative file through Quick Open (Ctrl+P, type, Enter). */
export async function quickOpen(page: Page, relPath: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (let attempt = 1; attempt <= 3; attempt++) {
    await page.keyboard.press('Control+P');
    try {
      await input.waitFor({ state: 'visible', timeout: 30_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw new Error(`Quick Open did not appear after Ctrl+P: ${String(e)}`);
    }
  }
  await input.fill(relPath);
  const base = path.basename(relPath);
  // Wait for the file search to list it (ripgrep-backed file search on the server).
  await page.locator('.quick-input-list .monaco-list-row', { hasText: base }).first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  await page.keyboard.press('Enter');
}

/**
 * Shows the extension's own side-bar container (activity bar: "Trajectory Inspector"), which holds
 * the Rollouts, Sessions and Search Rollouts views. Does nothing when it is already showing (a click
 * on the active activity-bar item would close the side bar).
 */
export async function showTrajectoryInspector(page: Page): Promise<void> {
  const title = page.locator('[id="workbench.parts.sidebar"] .composite.title', { hasText: /Trajectory Inspector/i }).first();
  if (await title.isVisible().catch(() => false)) return;
  const item = page.locator('[id="workbench.parts.activitybar"] .action-label[aria-label^="Trajectory Inspector"]').first();
  await item.waitFor({ state: 'visible', timeout: 60_000 }).catch(() => {
    throw new Error('no "Trajectory Inspector" item in the activity bar (is the view container contributed?)');
  });
  await item.click();
  await title.waitFor({ state: 'visible', timeout: 20_000 });
}

/** One view (section) of the Trajectory Inspector side bar: locators that read `page()` when called (a suite's page is set in its `before`). */
export interface ViewPane {
  sidebar(): Locator;
  /** The section's header. */
  header(): Locator;
  /** The section's pane. */
  pane(): Locator;
  /** The first tree row whose text holds `label`. */
  row(label: string | RegExp): Locator;
  /** Every tree row's text, as JSON (for failure messages). */
  rowsText(): Promise<string>;
  /**
   * Shows the Trajectory Inspector container and expands this section; `alone` folds the other
   * sections, so this one gets the side bar's whole height.
   */
  open(o?: { alone?: boolean }): Promise<void>;
}

/** The section of the Trajectory Inspector side bar whose title matches `title`. */
export function viewPane(page: () => Page, title: RegExp): ViewPane {
  const p: ViewPane = {
    sidebar: () => page().locator('[id="workbench.parts.sidebar"]'),
    header: () => p.sidebar().locator('.pane-header', { hasText: title }).first(),
    pane: () => p.sidebar().locator('.pane', { has: page().locator('.pane-header', { hasText: title }) }).first(),
    row: (label) => p.pane().locator('.monaco-list-row', { hasText: label }).first(),
    rowsText: async () => JSON.stringify(await p.pane().locator('.monaco-list-row').allInnerTexts()),
    open: async (o = {}) => {
      await showTrajectoryInspector(page());
      const header = p.header();
      await header.waitFor({ state: 'visible', timeout: 60_000 }).catch(() => {
        throw new Error(`no section ${title} in the Trajectory Inspector side bar (is the view contributed and the extension activated?)`);
      });
      // Click the title end of a header: its middle holds the view's action buttons. A command that
      // reveals the view (Search Rollouts…) may expand it at the same moment: check again after a
      // while, so the click that raced it does not leave it folded.
      for (let tries = 0; tries < 4; tries++) {
        if ((await header.getAttribute('aria-expanded')) === 'false') await header.click({ position: { x: 24, y: 10 } });
        await page().waitForTimeout(300);
        if ((await header.getAttribute('aria-expanded')) === 'true') break;
      }
      if (!o.alone) return;
      const headers = p.sidebar().locator('.pane-header');
      for (let i = 0; i < (await headers.count()); i++) {
        const h = headers.nth(i);
        if (!(await h.isVisible()) || title.test((await h.innerText()).trim())) continue;
        if ((await h.getAttribute('aria-expanded')) === 'true') await h.click({ position: { x: 24, y: 10 } });
      }
    },
  };
  return p;
}

/** Widens the side bar by `px` (drags the sash at its right edge), so rows' descriptions show whole. */
export async function widenSidebar(page: Page, px: number): Promise<void> {
  const box = await page.locator('[id="workbench.parts.sidebar"]').boundingBox();
  if (!box) return;
  const x = box.x + box.width - 1;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + px, y, { steps: 10 });
  await page.mouse.up();
}

/** The Rollouts view (see viewPane). */
export function rolloutsPane(page: () => Page): ViewPane {
  return viewPane(page, /^Rollouts/i);
}

/** The Sessions view (see viewPane). */
export function sessionsPane(page: () => Page): ViewPane {
  return viewPane(page, /^Sessions/i);
}

/** The content frame of this extension's webview panel: iframe.webview.ready → #active-frame. */
export function extensionWebview(page: Page): FrameLocator {
  return page.frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).first()
    .frameLocator('#active-frame');
}

/** Polls `fn` until it returns a truthy value or the time runs out; then throws `message()`. */
export async function waitUntil<T>(fn: () => Promise<T>, timeoutMs: number, message: () => string | Promise<string>): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${await message()}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Concatenates the extension host logs code-server wrote, for failure messages. */
export function extensionHostLogs(userDataDir: string): string {
  const logs: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/exthost|remoteexthost|trajectory/i.test(p) && p.endsWith('.log')) logs.push(`== ${p}\n${fs.readFileSync(p, 'utf8')}`);
    }
  };
  walk(path.join(userDataDir, 'logs'));
  return logs.join('\n');
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * One suite's code-server and browser: starts code-server on `workspace` with the packaged
 * extension (E2E_CODE_SERVER, E2E_VSIX and E2E_CHROMIUM come from scripts/e2e.mjs), opens its
 * workbench in Chromium at 1600×1000, and records every console message and page error of every
 * frame into `consoleLog` (for failure reports and CSP checks). Stops code-server when the browser
 * cannot start.
 */
export async function openSession(
  workspace: string,
  tmp: string,
  o: { consoleLog: string[]; settings?: Record<string, unknown>; env?: Record<string, string> },
): Promise<{ server: CodeServer; browser: Browser; page: Page }> {
  const vsix = requiredEnv('E2E_VSIX');
  const chromiumPath = requiredEnv('E2E_CHROMIUM');
  const server = await startCodeServer({ bin: requiredEnv('E2E_CODE_SERVER'), vsix, workspace, tmp: path.join(tmp, 'code-server'), settings: o.settings, env: o.env });
  console.log(`      code-server at ${server.url}, workspace ${workspace}`);
  try {
    const browser = await launchBrowser(chromiumPath);
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    page.on('console', (m) => o.consoleLog.push(`[${m.type()}] ${m.text()} (${m.location().url})`));
    page.on('pageerror', (e) => o.consoleLog.push(`[pageerror] ${e.stack ?? e.message}`));
    await openWorkbench(page, server.url, workspace);
    return { server, browser, page };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/**
 * For `afterEach`: when the test failed, saves a screenshot and the code-server, extension-host and
 * browser logs under ARTIFACTS, their names starting with `prefix` (e.g. `labels-`).
 */
export async function saveFailureArtifacts(
  test: { state?: string; title: string } | undefined,
  page: Page | undefined,
  server: CodeServer | undefined,
  consoleLog: string[],
  prefix: string,
): Promise<void> {
  if (test?.state !== 'failed' || !page) return;
  const name = test.title.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  await page.screenshot({ path: path.join(ARTIFACTS, `FAILED-${prefix}${name}.png`) }).catch(() => undefined);
  if (!server) return;
  fs.writeFileSync(path.join(ARTIFACTS, `${prefix}code-server.log`), server.log());
  fs.writeFileSync(path.join(ARTIFACTS, `${prefix}exthost.log`), extensionHostLogs(server.userDataDir));
  fs.writeFileSync(path.join(ARTIFACTS, `${prefix}browser-console.log`), consoleLog.join('\n'));
  console.log(`      failure artifacts in ${ARTIFACTS}`);
}

/** For `after`: closes the browser, stops code-server and removes the suite's temp folder. */
export async function closeSession(browser: Browser | undefined, server: CodeServer | undefined, tmp: string | undefined): Promise<void> {
  await browser?.close().catch(() => undefined);
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}
