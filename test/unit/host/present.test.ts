/**
 * Pure host logic: labels and descriptions for the Rollouts view (rolloutSummary.ts, fileLabel.ts),
 * Go to Step items (stepPick.ts), error → webview message (loadErrors.ts), the webview's HTML shell
 * and CSP (webviewHtml.ts), globs and bounded concurrency (globs.ts, mapLimit.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError, UnknownFormatError, formatIssue } from '../../../src/core/errors';
import { loadFile } from '../../../src/core/load';
import { formatLabel } from '../../../src/core/formats/registry';
import { miniSweAgentLoader } from '../../../src/core/formats/miniSweAgent';
import { derivedText, describeCounts, describeRollout, summarize } from '../../../src/host/rolloutSummary';
import { errorToMessage } from '../../../src/host/loadErrors';
import { fileLabel } from '../../../src/host/fileLabel';
import { joinGlobs } from '../../../src/host/globs';
import { makeNonce, timelineHtml } from '../../../src/host/webviewHtml';
import { mapLimit } from '../../../src/host/mapLimit';
import { parseStepNumber, stepPickItems } from '../../../src/host/stepPick';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { isHostMessage, isWebviewMessage, PICKER_MAX, pickerPositions } from '../../../src/shared/protocol';
import { formatReward, stepGist } from '../../../src/shared/text';
import { sample, tmpDir } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

async function loadError(file: string): Promise<unknown> {
  try {
    await loadFile(file);
  } catch (e) {
    return e;
  }
  throw new Error(`${file} loaded without error`);
}

describe('host/present', () => {
  it('formats rewards and rollout descriptions', () => {
    assert.equal(formatReward(0), '0.0');
    assert.equal(formatReward(1), '1.0');
    assert.equal(formatReward(0.33333), '0.333');
    assert.equal(describeCounts(24, 0, false), '24 steps · reward 0.0 · failed');
    assert.equal(describeCounts(1, 1, true), '1 step · reward 1.0 · resolved');
    assert.equal(describeCounts(5, null, null), '5 steps · —');
  });

  it('marks an outcome the loader derived (a Harbor trial: resolved from its 0 reward)', async () => {
    const r = (await loadFile(sample('harbor-trial-result/thinharness_configure-git-webserver__YfkUhxf_result.json'))).rollouts[0];
    assert.deepEqual(r.derived, ['outcome.resolved']);
    assert.equal(describeCounts(r.steps.length, r.outcome.reward, r.outcome.resolved, r.derived), `${r.steps.length} steps · reward 0.0 · failed (derived)`);
    assert.equal(derivedText(r.derived), 'Derived by the loader, not recorded in the file: outcome.resolved');
    assert.equal(derivedText([]), '');
  });

  it('describes a real rollout from its file', async () => {
    const f = await loadFile(sample(SWE_AGENT));
    const r = f.rollouts[0];
    // SWE-agent records only `exit_status: submitted`: the view says so, as the timeline header does.
    assert.equal(describeRollout(r), `${r.steps.length} steps · submitted`);
    assert.deepEqual(summarize(r, 0), { index: 0, id: r.id, taskId: r.task.id, steps: r.steps.length, reward: null, resolved: null, status: 'submitted', line: null });
  });

  it('names Harbor trials by their folder, other files by task id or file name', () => {
    assert.equal(fileLabel('/jobs/j1/hello-world__abc/agent/trajectory.json', 'hello-world'), 'hello-world__abc');
    assert.equal(fileLabel('/jobs/j1/hello-world__abc/result.json', null), 'hello-world__abc');
    assert.equal(fileLabel('/runs/x.traj', 'django__django-1234'), 'django__django-1234');
    assert.equal(fileLabel('/runs/x.traj.json', null), 'x.traj.json');
    assert.equal(fileLabel('C:\\runs\\t1\\agent\\trajectory.json', null), 't1');
  });

  it('builds Go to Step items and reads typed step numbers (1-based, as shown)', async () => {
    const r = (await loadFile(sample(SWE_AGENT))).rollouts[0];
    const items = stepPickItems(r);
    assert.equal(items.length, r.steps.length);
    assert.equal(items[2].label, '3');
    assert.equal(items[2].index, 2);
    const cmd = r.steps[2].actions[0].command!.trim();
    assert.ok(items[2].description.includes(cmd), items[2].description);
    assert.equal(stepGist(r.steps[2]), cmd);
    assert.equal(parseStepNumber('3', r.steps.length), 2);
    assert.equal(parseStepNumber(' #16 ', 16), 15);
    assert.equal(parseStepNumber('0', 16), null);
    assert.equal(parseStepNumber('17', 16), null);
    assert.equal(parseStepNumber('ls', 16), null);
  });

  it('turns a located load error into a loadError message with core-formatted issues', async () => {
    const dir = tmpDir('ti-present-');
    try {
      const broken = path.join(dir, 'cut.traj.json');
      const text = fs.readFileSync(sample(MINI), 'utf8');
      fs.writeFileSync(broken, text.slice(0, 200));
      const err = await loadError(broken);
      assert.ok(err instanceof RolloutLoadError);
      const msg = errorToMessage(broken, err);
      assert.equal(msg.type, 'loadError');
      assert.equal(msg.file, broken);
      assert.equal(msg.issues.length, err.issues.length);
      assert.equal(msg.issues[0].formatted, formatIssue(err.issues[0]));
      assert.ok(msg.issues[0].formatted.startsWith(`${broken}:${err.issues[0].line}:`));
      assert.ok(isHostMessage(msg));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the formats tried when no loader accepts a file', async () => {
    const dir = tmpDir('ti-present-');
    try {
      const other = path.join(dir, 'package.json');
      fs.writeFileSync(other, JSON.stringify({ name: 'not-a-rollout', version: '1.0.0' }));
      const err = await loadError(other);
      assert.ok(err instanceof UnknownFormatError);
      const msg = errorToMessage(other, err);
      assert.equal(msg.title, 'No rollout format matches this file');
      assert.equal(msg.declined.length, err.declined.length);
      assert.ok(msg.declined.length > 0);
      const plain = errorToMessage('/x', new Error('disk on fire'));
      assert.equal(plain.message, 'disk on fire');
      assert.deepEqual(plain.issues, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds the rollout message, clamping the rollout index', async () => {
    const f = await loadFile(sample(MINI));
    const m = rolloutMessage(new LoadedSource(f), 5, 2, { collapseOutputLines: 20 });
    assert.equal(m.rolloutIndex, 0);
    assert.equal(m.rollout, f.rollouts[0]);
    assert.equal(m.revealStep, 2);
    assert.equal(m.summaries.length, 1);
    assert.ok(isHostMessage(m));
    // The header's format name is the loader's own label (no table of names in the webview).
    assert.equal(m.file.format, 'mini-swe-agent');
    assert.equal(m.file.formatLabel, miniSweAgentLoader.label);
    assert.equal(formatLabel('no-such-format'), 'no-such-format');
  });

  it('sends the picker window of summaries, not all of them, for a file of thousands of rollouts', async () => {
    const f = await loadFile(sample(MINI));
    const many = { ...f, rollouts: Array.from({ length: 5000 }, (_, i) => ({ ...f.rollouts[0], id: `r${i}` })) };
    const m = rolloutMessage(new LoadedSource(many), 2500, null, { collapseOutputLines: 20 });
    assert.equal(m.rolloutCount, 5000);
    assert.deepEqual(m.summaries.map((s) => s.index), pickerPositions(5000, 2500));
    assert.equal(m.summaries.length, 1 + 501 + 1);
    assert.deepEqual([m.summaries[0].index, m.summaries[1].index, m.summaries.at(-2)!.index, m.summaries.at(-1)!.index], [0, 2250, 2750, 4999]);
    assert.ok(m.summaries.every((s) => s.id === `r${s.index}`), 'each summary is the rollout at its index');
    assert.ok(isHostMessage(m));
    // At the ends the window is one-sided; a file within PICKER_MAX sends every summary and no count.
    assert.deepEqual(pickerPositions(5000, 0).slice(0, 2), [0, 1]);
    assert.equal(pickerPositions(5000, 0).length, 252);
    assert.equal(pickerPositions(5000, 4999).length, 252);
    const few = rolloutMessage(new LoadedSource({ ...many, rollouts: many.rollouts.slice(0, PICKER_MAX) }), 3, null, { collapseOutputLines: 20 });
    assert.equal(few.summaries.length, PICKER_MAX);
    assert.equal(few.rolloutCount, undefined);
    assert.ok(!isHostMessage({ ...m, rolloutCount: -1 }));
  });

  it('writes a webview shell with a strict CSP, a nonce on the script and no inline data', () => {
    const nonce = makeNonce();
    const html = timelineHtml({
      cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
      nonce,
      scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
      styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/timeline.css',
    });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, new RegExp(`script-src 'nonce-${nonce.replace(/[+/]/g, '\\$&')}'`));
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(html, new RegExp(`<script type="module" nonce="${nonce.replace(/[+/]/g, '\\$&')}" src="[^"]+/dist/webview\\.js"></script>`));
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script: the bundle');
    assert.doesNotMatch(html, /style="/);
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.equal(Buffer.from(a, 'base64').length, 16);
  });

  it('joins globs into one pattern unless one has its own braces', () => {
    assert.equal(joinGlobs([]), null);
    assert.equal(joinGlobs(['**/*.traj']), '**/*.traj');
    assert.equal(joinGlobs(['**/*.traj', ' **/output.jsonl ', '']), '{**/*.traj,**/output.jsonl}');
    assert.deepEqual(joinGlobs(['**/*.{traj,json}', '**/x']), ['**/*.{traj,json}', '**/x']);
  });

  it('runs at most N tasks at once and keeps the order of results', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (ms, i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i * 10;
    });
    assert.deepEqual(out, [0, 10, 20, 30, 40, 50]);
    assert.equal(peak, 2);
  });
});

describe('shared/protocol guards', () => {
  it('accepts the webview messages the host handles, rejects anything else', () => {
    assert.ok(isWebviewMessage({ type: 'ready', state: null }));
    assert.ok(isWebviewMessage({ type: 'ready', state: { rolloutIndex: 0, rolloutId: 'a', selectedStep: 3, expanded: [1, 2] } }));
    assert.ok(isWebviewMessage({ type: 'stepSelected', rolloutIndex: 0, stepIndex: 4 }));
    assert.ok(isWebviewMessage({ type: 'showInSource', rolloutIndex: 1, stepIndex: 0 }));
    assert.ok(isWebviewMessage({ type: 'openLocation', file: '/a.json', line: 3, column: null }));
    assert.ok(isWebviewMessage({ type: 'reload' }));
    assert.ok(!isWebviewMessage(null));
    assert.ok(!isWebviewMessage('ready'));
    assert.ok(!isWebviewMessage({ type: 'stepSelected', rolloutIndex: 0, stepIndex: -1 }));
    assert.ok(!isWebviewMessage({ type: 'stepSelected', rolloutIndex: 0, stepIndex: 1.5 }));
    assert.ok(!isWebviewMessage({ type: 'showInSource', rolloutIndex: '0', stepIndex: 0 }));
    assert.ok(!isWebviewMessage({ type: 'openLocation', file: '', line: 1, column: 1 }));
    assert.ok(!isWebviewMessage({ type: 'ready', state: { rolloutIndex: 0, expanded: 'all' } }));
    assert.ok(!isWebviewMessage({ type: 'runCommand', command: 'rm -rf /' }));
  });
});

describe('host/config defaults', () => {
  it('match the defaults package.json declares (one list, two places)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json');
    const props = Object.assign({}, ...pkg.contributes.configuration.map((c: { properties: object }) => c.properties));
    const { DEFAULT_INCLUDE, DEFAULT_EXCLUDE, DEFAULT_COLLAPSE_LINES } = require('../../../src/shared/settings');
    assert.deepEqual(props['trajectoryInspector.rollouts.include'].default, DEFAULT_INCLUDE);
    assert.deepEqual(props['trajectoryInspector.rollouts.exclude'].default, DEFAULT_EXCLUDE);
    assert.equal(props['trajectoryInspector.timeline.collapseOutputLines'].default, DEFAULT_COLLAPSE_LINES);
  });
});
