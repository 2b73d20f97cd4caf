/**
 * e2e (issue 13): the Sessions view in the extension's own side bar, in code-server with the
 * packaged extension. code-server runs with HOME set to a fake home that holds the real Claude Code
 * and Codex CLI sessions of ../shared/format-census, their recorded cwd rewritten to this test's
 * workspace folder (test/unit/sessions/fakeHome.ts); one more copy keeps its real cwd (another
 * project: not listed), and a subagent transcript sits in its session's subagents/ folder (not a
 * session). The view must list the six sessions newest first with their titles, fill in their
 * counts, pick up a session written while it is open (the file watcher on a root outside the
 * workspace), and open a clicked session in the timeline editor.
 *
 * Screenshots: .test-artifacts/e2e/sessions.png (the list with counts), sessions-new.png (after a
 * session was written), sessions-open.png (a session opened from the list).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { claudeProjectDirName } from '../../src/core/sessions/roots';
import { censusFile } from '../unit/samples';
import { makeFakeHome } from '../unit/sessions/fakeHome';
import { ARTIFACTS, type CodeServer, closeSession, extensionWebview, makeTempDir, openSession, saveFailureArtifacts, sessionsPane, waitUntil, widenSidebar } from './harness';

/** The titles the six sessions recorded (first requests; the Codex Desktop ones were redacted by their publisher), newest first. */
const TITLES = [
  '[REDACTED_MESSAGE len=98 sha=c002ff99]', // Codex Desktop 0.104, 2026-02-23 19:34
  '[REDACTED_MESSAGE len=516 sha=05857781]', // Codex Desktop 0.104, 2026-02-23 11:40
  'Implement spotter-gqc', // Claude Code 2.1.39, 2026-02-11
  'mix phx.server doesnt seem to start', // Claude Code 2.1.38, 2026-02-10
  /^幫我檢查一下 go\.mod 裡面 為何 go版本是 1\.24\?/, // Codex 0.39 in VS Code, 2025-09-19
  /^幫我檢查一下 go\.mod 裡面 為何 go版本是 1\.23, toolchain/, // Claude Code 1.0.95 in sub/, 2025-08-28
];

describe('e2e: Sessions view (Claude Code and Codex sessions of a fake home)', function () {
  let tmp: string;
  let home: string;
  let workspace: string;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const consoleLog: string[] = [];
  const sessions = sessionsPane(() => page);

  const parts = async (r: Locator) => ({
    name: (await r.locator('.label-name').first().innerText()).trim(),
    description: (await r.locator('.label-description').first().innerText().catch(() => '')).trim(),
  });
  const rows = () => sessions.pane().locator('.monaco-list-row');
  const allParts = async () => Promise.all((await rows().all()).map(parts));

  before(async function () {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    tmp = makeTempDir('ti-e2e-sessions-');
    home = path.join(tmp, 'home');
    workspace = path.join(tmp, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(path.join(workspace, 'README.md'), '# a project its agents worked in\n');
    makeFakeHome(home, workspace);
    ({ server, browser, page } = await openSession(workspace, tmp, { consoleLog, env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' } }));
  });

  afterEach(async function () {
    await saveFailureArtifacts(this.currentTest, page, server, consoleLog, 'sessions-');
  });

  after(async function () {
    await closeSession(browser, server, tmp);
  });

  it('lists the workspace\'s six sessions newest first with their titles, and fills in their counts', async () => {
    await sessions.open({ alone: true });
    await widenSidebar(page, 500);
    const listed = (await waitUntil(async () => {
      const p = await allParts();
      return p.length === TITLES.length ? p : null;
    }, 60_000, async () => `the Sessions view did not list ${TITLES.length} sessions: ${await sessions.rowsText()}`))!;
    listed.forEach((p, i) => {
      const want = TITLES[i];
      if (typeof want === 'string') assert.equal(p.name, want, JSON.stringify(listed));
      else assert.match(p.name, want, JSON.stringify(listed));
    });
    // Counts come after the list (one pass over each file), then stay.
    const counted = (await waitUntil(async () => {
      const p = await allParts();
      return p.length === TITLES.length && p.every((x) => / turns? · /.test(x.description)) ? p : null;
    }, 90_000, async () => `the sessions' counts did not fill in: ${JSON.stringify(await allParts())}`))!;
    const desc = counted.map((p) => p.description.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d · /, ''));
    assert.deepEqual(desc, [
      '6 turns · 5 tool calls · 299k tokens',
      '81 turns · 105 tool calls · 7.2M tokens',
      '152 turns · 186 tool calls · 7 failed · 15M tokens',
      '1 turn · 2 tool calls · 2 failed · 25k tokens',
      '19 turns · 19 tool calls · 283k tokens',
      '32 turns · 31 tool calls · 2 failed · 1.2M tokens',
    ]);
    assert.match(counted[0].description, /^2026-02-2[34] \d\d:\d\d · /); // local time of 2026-02-23T19:34Z
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sessions.png') });
  });

  it('shows a session written while the view is open (a watcher on ~/.claude/projects, outside the workspace)', async () => {
    // A new Claude Code session in the workspace: the real short transcript under a new id, its first request replaced.
    const id = 'bbbbbbbb-1111-4222-8333-444444444444';
    const lines = fs.readFileSync(censusFile('claude-code/short.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const r of lines) {
      if (typeof r.cwd === 'string') r.cwd = workspace;
      if (r.sessionId) r.sessionId = id;
      r.timestamp &&= new Date().toISOString();
    }
    const firstUser = lines.find((r) => r.type === 'user');
    firstUser.message.content = 'e2e: a session written while the Sessions view is open';
    const file = path.join(home, '.claude', 'projects', claudeProjectDirName(workspace), `${id}.jsonl`);
    fs.writeFileSync(file, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const written = Date.now();
    // The watcher's event (debounced 1 s) relists well before the view's 60 s poll would.
    const top = (await waitUntil(async () => {
      const p = await allParts();
      return p[0]?.name === firstUser.message.content ? p : null;
    }, 30_000, async () => `the new session did not show at the top: ${JSON.stringify(await allParts())}`))!;
    assert.equal(top.length, TITLES.length + 1);
    console.log(`      the new session showed ${((Date.now() - written) / 1000).toFixed(1)} s after it was written`);
    await waitUntil(async () => /1 turn · 2 tool calls · 2 failed/.test((await parts(rows().first())).description), 30_000,
      async () => `the new session was not counted: ${JSON.stringify(await allParts())}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sessions-new.png') });
  });

  it('opens a clicked session in the timeline editor', async () => {
    const row = sessions.row('Implement spotter-gqc');
    await row.click();
    const tab = page.locator('.tabs-container .tab', { hasText: '258c7280-ae70-4798-800f-63464d01a85d.jsonl' }).first();
    await tab.waitFor({ state: 'visible', timeout: 30_000 }).catch(async () => {
      throw new Error(`no editor tab for the session; tabs: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`);
    });
    // The timeline (a custom editor: a webview), not the text editor: it shows the session's steps,
    // or, while no loader reads Claude Code transcripts, the load error naming the file.
    const shown = extensionWebview(page).locator('.load-error, .step-card').first();
    await shown.waitFor({ state: 'visible', timeout: 60_000 });
    const text = (await shown.innerText()).replace(/\s+/g, ' ');
    console.log(`      the timeline shows: ${text.slice(0, 160)}`);
    assert.ok(/step/i.test(text) || text.includes('258c7280-ae70-4798-800f-63464d01a85d.jsonl'), text);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sessions-open.png') });
  });
});
