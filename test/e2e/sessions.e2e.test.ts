/**
 * e2e (issue 13): the Sessions view in the extension's own side bar, in code-server with the
 * packaged extension. code-server runs with HOME set to a fake home that holds the real Claude Code
 * and Codex CLI sessions of ../shared/format-census, their recorded cwd rewritten to this test's
 * workspace folder (test/unit/sessions/fakeHome.ts); one more copy keeps its real cwd (another
 * project: not listed), and a subagent transcript sits in its session's subagents/ folder (not a
 * session). The view must list the six sessions newest first with their titles, fill in their
 * counts, pick up a session written while it is open (the file watcher on a root outside the
 * workspace), open a clicked session in the timeline editor with the loader's steps, open the
 * subagent from the step that started it (and link back), show lines appended to an open session
 * while Follow is on, and let Search Rollouts find a session's command.
 *
 * Screenshots: .test-artifacts/e2e/sessions.png (the list with counts), sessions-new.png (after a
 * session was written), sessions-open.png (a session opened from the list), sessions-subagent-link.png
 * and sessions-subagent.png (the parent step's link, the subagent beside it), sessions-follow.png
 * (an appended turn shown while following), sessions-search.png (a hit in a session).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { claudeProjectDirName } from '../../src/core/sessions/roots';
import { censusFile } from '../unit/samples';
import { makeFakeHome } from '../unit/sessions/fakeHome';
import {
  e2eSuite, quickInput, runCommand, screenshot, sessionsPane, UI_MS, viewPane, waitForQuickInputTitle, waitUntil, widenSidebar,
} from './harness';
import { formatLabel } from '../../src/core/formats/registry';
import { loadFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';

const SID = '258c7280-ae70-4798-800f-63464d01a85d';
/** The short Claude Code session (2.1.38): the one the follow test appends to. */
const SHORT = '55604662-cf2a-4331-851a-ec234028f8ca';

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
  let home: string;
  const e2e = e2eSuite({
    name: 'sessions',
    prepare: (workspace, tmp) => {
      home = path.join(tmp, 'home');
      fs.writeFileSync(path.join(workspace, 'README.md'), '# a project its agents worked in\n');
      makeFakeHome(home, workspace);
    },
    env: () => ({ HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' }),
  });
  const sessions = sessionsPane(() => e2e.page);
  let parentSession: Rollout | null = null;

  const parts = async (r: Locator) => ({
    name: (await r.locator('.label-name').first().innerText()).trim(),
    description: (await r.locator('.label-description').first().innerText().catch(() => '')).trim(),
  });
  const rows = () => sessions.pane().locator('.monaco-list-row');
  const allParts = async () => Promise.all((await rows().all()).map(parts));

  it('lists the workspace\'s six sessions newest first with their titles, and fills in their counts', async () => {
    await sessions.open({ alone: true });
    await widenSidebar(e2e.page, 500);
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
    await e2e.page.mouse.move(0, 0);
    await screenshot(e2e.page, 'sessions');
  });

  it('shows a session written while the view is open (a watcher on ~/.claude/projects, outside the workspace)', async () => {
    // A new Claude Code session in the workspace: the real short transcript under a new id, its first request replaced.
    const id = 'bbbbbbbb-1111-4222-8333-444444444444';
    const lines = fs.readFileSync(censusFile('claude-code/short.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const r of lines) {
      if (typeof r.cwd === 'string') r.cwd = e2e.workspace;
      if (r.sessionId) r.sessionId = id;
      r.timestamp &&= new Date().toISOString();
    }
    const firstUser = lines.find((r) => r.type === 'user');
    firstUser.message.content = 'e2e: a session written while the Sessions view is open';
    const file = path.join(home, '.claude', 'projects', claudeProjectDirName(e2e.workspace), `${id}.jsonl`);
    fs.writeFileSync(file, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const written = Date.now();
    // The watcher's event (debounced 1 s) relists well before the view's 60 s poll would.
    const top = (await waitUntil(async () => {
      const p = await allParts();
      return p[0]?.name === firstUser.message.content ? p : null;
    }, UI_MS, async () => `the new session did not show at the top: ${JSON.stringify(await allParts())}`))!;
    assert.equal(top.length, TITLES.length + 1);
    console.log(`      the new session showed ${((Date.now() - written) / 1000).toFixed(1)} s after it was written`);
    await waitUntil(async () => /1 turn · 2 tool calls · 2 failed/.test((await parts(rows().first())).description), UI_MS,
      async () => `the new session was not counted: ${JSON.stringify(await allParts())}`);
    await screenshot(e2e.page, 'sessions-new');
  });

  /** The timeline webview showing `steps` steps (several timelines may be open side by side). */
  async function timelineOf(steps: number): Promise<Frame> {
    return waitUntil(async () => {
      for (const f of e2e.page.frames()) {
        const t = await f.locator('ti-app #step-count').innerText({ timeout: 200 }).catch(() => null);
        if (t?.trim() === `${steps} steps`) return f;
      }
      return null;
    }, 60_000, async () => `no timeline shows ${steps} steps; step counts shown: ${JSON.stringify(await Promise.all(e2e.page.frames().map((f) => f.locator('ti-app #step-count').innerText({ timeout: 200 }).catch(() => null))))}`) as Promise<Frame>;
  }

  it('opens a clicked session in the timeline editor: its steps, as the loader reads them', async () => {
    const file = path.join(home, '.claude', 'projects', claudeProjectDirName(e2e.workspace), `${SID}.jsonl`);
    const loaded = await loadFile(file);
    parentSession = loaded.rollouts[0];
    const row = sessions.row('Implement spotter-gqc');
    await row.click();
    const tab = e2e.page.locator('.tabs-container .tab', { hasText: `${SID}.jsonl` }).first();
    await tab.waitFor({ state: 'visible', timeout: UI_MS }).catch(async () => {
      throw new Error(`no editor tab for the session; tabs: ${JSON.stringify(await e2e.page.locator('.tabs-container .tab').allInnerTexts())}`);
    });
    // The timeline (a custom editor: a webview), not the text editor: the session's steps and header.
    const tl = await timelineOf(parentSession.steps.length);
    // The header names the format as its loader labels it.
    assert.ok((await tl.locator('header .format').innerText()).includes(formatLabel('claude-code')), 'the header names the format');
    assert.equal(await tl.locator('header .workdir .value').innerText(), e2e.workspace);
    const firstCommand = parentSession.steps.flatMap((s) => s.actions).find((a) => a.kind === 'shell')!.command!;
    await waitUntil(async () => (await tl.locator('.action-command.shell').allInnerTexts()).some((t) => t.includes(firstCommand.split('\n')[0])), UI_MS,
      async () => `no shell card shows ${JSON.stringify(firstCommand)}`);
    await screenshot(e2e.page, 'sessions-open');
  });

  it('opens the subagent from the step that started it; the subagent links back to its parent', async () => {
    assert.ok(parentSession, 'the session was opened');
    const parent = parentSession!.steps.find((s) => s.links?.some((l) => l.relation === 'subagent'))!;
    const link = parent.links!.find((l) => l.relation === 'subagent')!;
    assert.equal(link.missing ?? null, null, 'the fake home has the subagent transcript in the session\'s subagents/ folder');
    await e2e.page.locator('.tabs-container .tab', { hasText: `${SID}.jsonl` }).first().click();
    await runCommand(e2e.page, 'Trajectory Inspector: Go to Step…');
    const input = quickInput(e2e.page);
    await input.fill(String(parent.index + 1));
    await e2e.page.keyboard.press('Enter');
    const card = (await timelineOf(parentSession!.steps.length)).locator(`.step-card[data-index="${parent.index}"]`);
    await card.waitFor({ state: 'visible', timeout: UI_MS });
    const button = card.locator('.links button.link[data-relation="subagent"]');
    assert.equal(await button.innerText(), `↳ subagent: ${link.label}`);
    await screenshot(e2e.page, 'sessions-subagent-link');
    await button.click();
    const subTab = e2e.page.locator('.tabs-container .tab', { hasText: path.basename(link.path!) }).first();
    await subTab.waitFor({ state: 'visible', timeout: UI_MS });
    const sub = (await loadFile(link.path!)).rollouts[0];
    const subTl = await timelineOf(sub.steps.length);
    const back = subTl.locator('header .rollout-links button.link[data-relation="parent"]');
    await back.waitFor({ state: 'visible', timeout: UI_MS });
    assert.match(await back.innerText(), /^↑ parent: /);
    await screenshot(e2e.page, 'sessions-subagent');
  });

  it('lines appended to an open session appear while Follow is on (the newest step in view)', async () => {
    const file = path.join(home, '.claude', 'projects', claudeProjectDirName(e2e.workspace), `${SHORT}.jsonl`);
    const recs = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const before = (await loadFile(file)).rollouts[0].steps.length;
    await sessions.row('mix phx.server doesnt seem to start').click();
    const tl = await timelineOf(before);
    await tl.locator('button.follow-toggle').click();
    await tl.locator('button.follow-toggle[aria-pressed="true"]').waitFor({ timeout: UI_MS });
    // The session goes on: the user asks again, the agent runs a command, its result comes back —
    // records shaped as the session's own (its last user and assistant records, new ids).
    const lastUser = [...recs].reverse().find((r) => r.type === 'user' && typeof r.message?.content === 'string');
    const lastAssistant = [...recs].reverse().find((r) => r.type === 'assistant');
    let parent = recs[recs.length - 1].uuid;
    const rec = (base: any, extra: any) => {
      const r = { ...base, ...extra, uuid: `e2e-${Math.random().toString(16).slice(2)}`, parentUuid: parent, timestamp: new Date().toISOString() };
      parent = r.uuid;
      return JSON.stringify(r) + '\n';
    };
    const ask = rec(lastUser, { message: { role: 'user', content: 'e2e: and now?' } });
    const call = rec(lastAssistant, {
      message: { ...lastAssistant.message, id: 'msg_e2e_follow', content: [{ type: 'tool_use', id: 'toolu_e2e_follow', name: 'Bash', input: { command: 'echo followed-by-e2e' } }] },
    });
    const result = rec(lastUser, { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e2e_follow', content: 'followed-by-e2e' }] } });
    const written = Date.now();
    fs.appendFileSync(file, ask + call);
    fs.appendFileSync(file, result);
    const after = await loadFile(file);
    assert.equal(after.rollouts[0].steps.length, before + 2, 'the loader reads the appended turn as two steps');
    await timelineOf(before + 2);
    console.log(`      the appended step showed ${((Date.now() - written) / 1000).toFixed(1)} s after it was written`);
    const card = tl.locator(`.step-card[data-index="${before + 1}"]`);
    await card.waitFor({ state: 'visible', timeout: UI_MS });
    assert.equal(await card.locator('.action-command.shell').innerText(), 'echo followed-by-e2e');
    await waitUntil(async () => (await card.locator('pre.output').allInnerTexts()).join('').includes('followed-by-e2e'), UI_MS, async () => 'the result of the appended call did not join its step');
    await screenshot(e2e.page, 'sessions-follow');
  });

  it('Search Rollouts finds a command of a session recorded in the workspace and opens its step', async () => {
    assert.ok(parentSession, 'the session was opened');
    // A shell command of this session in plain words (the query syntax reads quotes and operators).
    const plain = (c: string | null) => c !== null && /^[A-Za-z0-9 ._\/-]{12,60}$/.test(c);
    const step = parentSession!.steps.find((s) => s.actions.some((a) => a.kind === 'shell' && plain(a.command)))!;
    const command = step.actions.find((a) => a.kind === 'shell' && plain(a.command))!.command!;
    await runCommand(e2e.page, 'Trajectory Inspector: Search Rollouts…');
    await waitForQuickInputTitle(e2e.page, 'Search Rollouts');
    await quickInput(e2e.page).fill(`${command} in:command`);
    await e2e.page.keyboard.press('Enter');
    const search = viewPane(() => e2e.page, /^Search Rollouts/i);
    await search.open({ alone: true });
    const hit = search.pane().locator('.monaco-list-row', { hasText: new RegExp(`^#${step.index + 1} command:`) }).first();
    await hit.waitFor({ state: 'visible', timeout: 60_000 }).catch(async () => {
      throw new Error(`no hit at step #${step.index + 1}: ${JSON.stringify(await search.pane().locator('.monaco-list-row').allInnerTexts())}`);
    });
    await screenshot(e2e.page, 'sessions-search');
    await hit.click();
    const tl = await timelineOf(parentSession!.steps.length);
    await waitUntil(async () => (await tl.locator('.step-card.selected').getAttribute('data-index').catch(() => null)) === String(step.index), UI_MS,
      async () => `the timeline did not select step index ${step.index}`);
  });
});
