/**
 * `trajectory-inspector export-rollout` as a user runs it (dist/cli.js; `npm run build` first): a real
 * ATIF sample with secrets planted in a command and an output is exported as Markdown, redacted.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, sampleJson, tmpDir } from '../unit/samples';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const TOKEN = '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';
const EMAIL = 'jane.doe@example.org';

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI export-rollout (dist/cli.js)', function () {
  this.timeout(180_000);
  let file = '';
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    const t = sampleJson(ATIF);
    // Plant a token in a keystroke command and an e-mail in an observation, as an agent's session would hold them.
    const step = t.steps.find((s: any) => s.tool_calls?.length && s.observation?.results?.length);
    assert.ok(step, 'the sample has a step with a tool call and its observation');
    step.tool_calls[0].arguments.keystrokes = `git clone https://${TOKEN}@github.com/o/r\n`;
    step.observation.results[0].content = `Author: Jane <${EMAIL}>\nin /home/alice/work`;
    file = path.join(tmpDir('export-rollout-'), 'trajectory.json');
    fs.writeFileSync(file, JSON.stringify(t));
  });

  it('writes a redacted Markdown transcript and says what it redacted', () => {
    const out = path.join(path.dirname(file), 'out.md');
    const r = cli('export-rollout', file, '--as', 'md', '--out', out);
    assert.equal(r.code, 0, r.stderr);
    const md = fs.readFileSync(out, 'utf8');
    assert.ok(!md.includes(TOKEN) && !md.includes(EMAIL) && !md.includes('/home/alice'), 'the secrets are gone');
    assert.match(md, /\[REDACTED:github[a-z-]*\]@github\.com\/o\/r/);
    assert.match(md, /\/home\/<user>\/work/);
    // The keystrokes are both the action's command and its recorded arguments: each place counts.
    assert.match(r.stderr, /^\d+ redacted: .*github-token.*email.*home-user/m);
    assert.match(md, /\*Exported by Trajectory Inspector; redacted: \d+ redacted: /);
    assert.match(md, /^### #1 · /m);
  });

  it('--no-redact keeps the text; --steps and --rollout pick; bad options exit 2, a missing rollout 1', () => {
    const raw = cli('export-rollout', file, '--as', 'md', '--no-redact', '--steps', '2-3');
    assert.equal(raw.code, 0, raw.stderr);
    assert.ok(raw.stdout.includes(TOKEN) || raw.stdout.includes(EMAIL), 'not redacted on request');
    assert.match(raw.stdout, /\*\*Steps\*\*: #2–#3 of/);
    assert.match(raw.stdout, /not redacted\.\*/);
    assert.equal(cli('export-rollout', file, '--as', 'pdf').code, 2);
    assert.equal(cli('export-rollout', file).code, 2, '--as is needed');
    assert.equal(cli('export-rollout', file, '--as', 'md', '--steps', '3-1').code, 2);
    assert.equal(cli('export-rollout', file, '--as', 'md', '--redact-pattern', '(').code, 2);
    assert.equal(cli('export-rollout').code, 2);
    const missing = cli('export-rollout', file, '--as', 'md', '--rollout', '2');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has 1 rollout\(s\); --rollout 2/);
    const custom = cli('export-rollout', file, '--as', 'md', '--redact-pattern', 'hello\\.txt', '--keep-emails');
    assert.equal(custom.code, 0, custom.stderr);
    assert.ok(custom.stdout.includes(EMAIL) && !custom.stdout.includes('hello.txt'), 'the user pattern applies; e-mails kept on request');
  });
});
