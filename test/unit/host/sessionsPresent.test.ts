/** The Sessions view's rows (src/host/sessionsPresent.ts) and its contributions in package.json. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countSession, readSessionHead } from '../../../src/core/sessions/list';
import { compactCount } from '../../../src/core/sessions/text';
import type { SessionEntry } from '../../../src/core/sessions/types';
import { sessionDescription, sessionLabel, sessionTooltipLines } from '../../../src/host/sessionsPresent';
import { DEFAULT_SESSION_ROOTS } from '../../../src/shared/settings';
import { REPO_ROOT, censusFile } from '../samples';

async function entry(rel: string, counted: boolean): Promise<SessionEntry> {
  const file = censusFile(rel);
  const st = fs.statSync(file);
  const head = (await readSessionHead(file, null))!.head;
  const e: SessionEntry = { path: file, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, head, counts: null };
  if (counted) e.counts = await countSession(e, head);
  return e;
}

describe('Sessions view rows', () => {
  it('label = the first request; description = start, turns, tool calls, failed, tokens once counted', async () => {
    const e = await entry('claude-code/short.jsonl', false);
    assert.equal(sessionLabel(e), 'mix phx.server doesnt seem to start');
    const start = sessionDescription(e).split(' · ')[0];
    assert.match(start, /^2026-02-1[01] \d\d:\d\d$/); // local time of 2026-02-10T21:11:52Z
    assert.equal(sessionDescription(e), `${start} · counting…`);
    const c = await entry('claude-code/short.jsonl', true);
    assert.equal(sessionDescription(c), `${start} · 1 turn · 2 tool calls · 2 failed · 25k tokens`);
    const big = await entry('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl', true);
    assert.match(sessionDescription(big), / · 152 turns · 186 tool calls · 7 failed · 15M tokens$/);
    const codex = await entry('codex-cli/vibecodingtracker_codex.jsonl', true);
    assert.match(sessionDescription(codex), / · 19 turns · 19 tool calls · 283k tokens$/); // no failed part when none failed
    assert.match(sessionDescription({ ...codex, counts: null }, 'skipped'), / · 0 MB \(not counted\)$/);
  });

  it('tooltip: agent and version, start, cwd and branch, counts, tokens, file', async () => {
    const e = await entry('codex-cli/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl', true);
    const lines = sessionTooltipLines(e);
    assert.equal(lines[0], '[REDACTED_MESSAGE len=98 sha=c002ff99]');
    assert.ok(lines.includes('Codex CLI 0.104.0-alpha.1 (Codex Desktop)'), lines.join('\n'));
    assert.ok(lines.includes('cwd /redacted/path/ea96e59ed9 on main'), lines.join('\n'));
    assert.ok(lines.includes('6 turns, 5 tool calls, 0 failed'), lines.join('\n'));
    assert.ok(lines.includes('tokens: 298373 in (238848 cached), 1123 out'), lines.join('\n'));
    assert.ok(lines.at(-1)!.startsWith(e.path));
  });

  it('compact counts', () => {
    assert.deepEqual([999, 1234, 9999, 25366, 999_499, 999_999, 7_240_100, 15_160_170].map(compactCount), ['999', '1.2k', '10k', '25k', '999k', '1.0M', '7.2M', '15M']);
  });
});

describe('package.json: the activity-bar container and the Sessions view', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  it('one container of its own holds Rollouts, Sessions and Search Rollouts (ids unchanged); nothing is left in the Explorer', () => {
    const [container] = pkg.contributes.viewsContainers.activitybar;
    assert.equal(container.id, 'trajectoryInspector');
    assert.ok(fs.existsSync(path.join(REPO_ROOT, container.icon)), container.icon);
    assert.deepEqual(pkg.contributes.views[container.id].map((v: { id: string }) => v.id), ['trajectoryInspector.rollouts', 'trajectoryInspector.sessions', 'trajectoryInspector.search']);
    assert.equal(pkg.contributes.views.explorer, undefined);
  });

  it('the roots setting is machine-scoped, defaults to none, and every Sessions command is declared', () => {
    const props = Object.assign({}, ...pkg.contributes.configuration.map((c: { properties: object }) => c.properties));
    const roots = props['trajectoryInspector.sessions.roots'];
    assert.equal(roots.scope, 'machine');
    assert.deepEqual(roots.default, DEFAULT_SESSION_ROOTS);
    const ids = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const id of ['trajectoryInspector.openSession', 'trajectoryInspector.openSessionFile', 'trajectoryInspector.refreshSessions', 'trajectoryInspector.showMoreSessions']) assert.ok(ids.includes(id), id);
    const src = fs.readFileSync(path.join(REPO_ROOT, 'src', 'host', 'sessionsView.ts'), 'utf8');
    for (const id of ids.filter((i: string) => /Session/.test(i))) assert.ok(src.includes(`'${id}'`), `${id} is registered in sessionsView.ts`);
  });
});
