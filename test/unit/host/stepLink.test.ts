import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildStepLink, linkPathOf, parseStepLink, resolveLinkPath, StepLinkError } from '../../../src/host/stepLink';

/** Parses a link string as VS Code's handler sees it (its path and its still-encoded query). */
function parse(link: string) {
  const u = new URL(link);
  return parseStepLink(u.pathname, u.search.slice(1));
}

describe('host/stepLink: links to a step', () => {
  it('a link built for a step reads back as that step, with awkward paths kept exactly', () => {
    for (const file of ['runs/job 1/trial#3/agent/trajectory.json', 'a&b=c?.jsonl', 'ünïcode/日本.traj', '/abs/path/x.jsonl']) {
      const link = buildStepLink('vscode', 'trajectory-inspector.trajectory-inspector', { file, rolloutIndex: 41, stepIndex: 6 });
      assert.match(link, /^vscode:\/\/trajectory-inspector\.trajectory-inspector\/open\?file=/);
      assert.deepEqual(parse(link), { file, rolloutIndex: 41, stepIndex: 6 });
    }
    const noStep = buildStepLink('code-oss', 'p.n', { file: 'x.traj', rolloutIndex: 0, stepIndex: null });
    assert.ok(!noStep.includes('step='), noStep);
    assert.deepEqual(parse(noStep), { file: 'x.traj', rolloutIndex: 0, stepIndex: null });
  });

  it('rollout and step default to the first rollout and its start; unknown parameters are ignored', () => {
    assert.deepEqual(parseStepLink('/open', 'file=a.traj&foo=bar'), { file: 'a.traj', rolloutIndex: 0, stepIndex: null });
    assert.deepEqual(parseStepLink('/open', 'file=a.traj&rollout=&step=3'), { file: 'a.traj', rolloutIndex: 0, stepIndex: 2 });
  });

  it('a bad link says which parameter is wrong', () => {
    const bad: [string, string, RegExp][] = [
      ['/other', 'file=a', /path "\/other" is not \/open/],
      ['/open', '', /no file=/],
      ['/open', 'file=%20%20', /no file=/],
      ['/open', 'file=a%00b', /not a usable path/],
      ['/open', `file=${'x'.repeat(5000)}`, /not a usable path/],
      ['/open', 'file=a&step=0', /step="0" is not a step number/],
      ['/open', 'file=a&step=-2', /step="-2"/],
      ['/open', 'file=a&step=1.5', /step="1.5"/],
      ['/open', 'file=a&rollout=abc', /rollout="abc" is not a rollout number/],
      ['/open', 'file=a&step=99999999999', /step="99999999999"/],
    ];
    for (const [route, query, msg] of bad) assert.throws(() => parseStepLink(route, query), (e: unknown) => e instanceof StepLinkError && msg.test(e.message), `${route}?${query}`);
  });

  it('the file parameter is relative to the workspace folder that holds the file, else absolute', () => {
    const a = path.join(os.tmpdir(), 'ws-a');
    const b = path.join(os.tmpdir(), 'ws-b');
    assert.equal(linkPathOf(path.join(b, 'runs', 'r.jsonl'), [a, b]), 'runs/r.jsonl');
    assert.equal(linkPathOf(path.join(a, 'x.traj'), [a, b]), 'x.traj');
    const outside = path.join(os.tmpdir(), 'elsewhere', 'y.traj');
    assert.equal(linkPathOf(outside, [a, b]), outside);
    assert.equal(linkPathOf(path.join(os.tmpdir(), 'ws-ab', 'z.traj'), [a]), path.join(os.tmpdir(), 'ws-ab', 'z.traj'), 'a sibling folder with the same prefix is not inside');
  });

  it('resolves a relative path in the first folder that has it, refuses one that leaves its folder, and names what it tried', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steplink-'));
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    fs.mkdirSync(path.join(b, 'runs'), { recursive: true });
    fs.mkdirSync(a);
    fs.writeFileSync(path.join(b, 'runs', 'r.jsonl'), '{}\n');
    fs.writeFileSync(path.join(root, 'secret.json'), '{}');
    try {
      assert.deepEqual(resolveLinkPath('runs/r.jsonl', [a, b]), { path: path.join(b, 'runs', 'r.jsonl') });
      assert.deepEqual(resolveLinkPath('runs\\r.jsonl', [a, b]), { path: path.join(b, 'runs', 'r.jsonl') }, 'a link made on Windows');
      assert.deepEqual(resolveLinkPath('runs/missing.jsonl', [a, b]), { tried: [path.join(a, 'runs', 'missing.jsonl'), path.join(b, 'runs', 'missing.jsonl')], reason: null });
      for (const escape of ['../secret.json', 'runs/../../secret.json', '..', '.']) {
        const r = resolveLinkPath(escape, [a, b]);
        assert.ok(!('path' in r) && r.tried.length === 0 && /leaves the workspace folder/.test(r.reason ?? ''), `${escape}: ${JSON.stringify(r)}`);
      }
      assert.deepEqual(resolveLinkPath('runs', [b]), { tried: [path.join(b, 'runs')], reason: null }, 'a folder is not a rollout file');
      assert.deepEqual(resolveLinkPath(path.join(b, 'runs', 'r.jsonl'), []), { path: path.join(b, 'runs', 'r.jsonl') });
      assert.deepEqual(resolveLinkPath('x.jsonl', []), { tried: [], reason: 'no workspace folder is open' });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
