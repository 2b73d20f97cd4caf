/**
 * The example folder `npm start` opens (examples/, described in examples/README.md): every example
 * loads with the format the README names, the coding-agent session examples are the census files
 * with only the user names in home paths replaced, and the folder's workspace setting lists them in
 * the Rollouts view (the defaults plus the session file names, kept in step with DEFAULT_INCLUDE).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../../src/core/errors';
import { loadFile } from '../../src/core/load';
import { DEFAULT_INCLUDE } from '../../src/shared/settings';
import { censusFile } from './samples';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const CLAUDE = 'claude-code/55604662-cf2a-4331-851a-ec234028f8ca.jsonl';
const CODEX = 'codex-cli/rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl';
const GEMINI = 'gemini-cli/session-2026-04-23T12-52-0ab84937.jsonl';

/** The session file names the example folder's setting adds to the default include globs. */
const SESSION_GLOBS = [
  '**/????????-????-????-????-????????????.jsonl', // Claude Code: <session id>.jsonl
  '**/rollout-????-??-??T??-??-??-*.jsonl', // Codex CLI: rollout-<time>-<id>.jsonl
  '**/session-????-??-??T??-??-*.jsonl', // Gemini CLI: session-<time>-<id8>.jsonl
];

/** A VS Code glob of `**`, `*` and `?` only, as a RegExp over a `/`-separated relative path. */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

describe('examples/ (npm start)', () => {
  it('each example loads with the format examples/README.md names; the broken one fails located', async () => {
    const expected: [string, string, number][] = [
      ['harbor/hello-world__golden/agent/trajectory.json', 'atif', 1],
      ['swe-agent/6e44b9__sweagenttestrepo-1c2844.traj', 'swe-agent', 1],
      ['mini-swe-agent/harbor-rfc_mini-swe-agent.traj.json', 'mini-swe-agent', 1],
      ['openhands/basic_trajectory.json', 'openhands-v0', 1],
      [CLAUDE, 'claude-code', 1],
      [CODEX, 'codex-cli', 1],
      [GEMINI, 'gemini-cli', 1],
    ];
    const readme = fs.readFileSync(path.join(EXAMPLES, 'README.md'), 'utf8');
    for (const [rel, format, rollouts] of expected) {
      assert.ok(readme.includes(`\`${rel}\``), `examples/README.md lists ${rel}`);
      const f = await loadFile(path.join(EXAMPLES, rel));
      assert.equal(f.format, format, rel);
      assert.equal(f.rollouts.length, rollouts, rel);
    }
    await assert.rejects(loadFile(path.join(EXAMPLES, 'broken', 'truncated.traj')), (e: unknown) => e instanceof RolloutLoadError && e.issues[0].line !== null);
  });

  it('the session examples are the census files with the user names in home paths replaced by "user", nothing else', () => {
    const copies: [string, string, [RegExp, string][]][] = [
      [CLAUDE, 'claude-code/short.jsonl', [[/\/home\/marco/g, '/home/user']]],
      [CODEX, 'codex-cli/vibecodingtracker_codex.jsonl', [[/\/home\/wei/g, '/home/user'], [/ds906659/g, 'user']]],
      [GEMINI, 'gemini-cli/session-jsonl_gemini.jsonl', [[/\/home\/wei/g, '/home/user']]],
    ];
    for (const [rel, census, replacements] of copies) {
      let text = fs.readFileSync(censusFile(census), 'utf8');
      for (const [re, to] of replacements) {
        assert.ok(re.test(text), `${census} holds ${re}`);
        text = text.replace(re, to);
      }
      assert.equal(fs.readFileSync(path.join(EXAMPLES, rel), 'utf8'), text, rel);
    }
  });

  it('the session examples show what a session holds: rejected calls, recorded exit codes, patches and edits, events, warnings', async () => {
    const claude = (await loadFile(path.join(EXAMPLES, CLAUDE))).rollouts[0];
    assert.equal(claude.environment.workdir, '/home/user/projects/spotter');
    assert.deepEqual(claude.steps[1].actions.map((a) => [a.kind, a.tool, a.command]), [['shell', 'Bash', 'mix phx.server 2>&1 | head -80'], ['tool', 'Glob', null]]);
    // The user rejected both calls: is_error results, no exit code.
    assert.deepEqual(claude.steps[1].observations.map((o) => [o.isError, o.exitCode]), [[true, null], [true, null]]);
    assert.deepEqual(claude.steps.map((s) => s.event?.kind ?? null), [null, null, 'interrupted', 'notice', 'notice']);

    const codex = await loadFile(path.join(EXAMPLES, CODEX));
    const c = codex.rollouts[0];
    assert.equal(c.environment.workdir, '/proj/user/gai/claude-code');
    const shell = c.steps.flatMap((s) => s.actions.filter((a) => a.kind === 'shell').map((a, k) => ({ a, o: s.observations[k] })));
    assert.equal(shell[0].a.command, 'ls -la');
    assert.equal(shell[0].o.exitCode, 0);
    assert.equal(shell[0].o.exitCodeFrom, undefined, 'recorded in the shell output metadata');
    const patches = c.steps.flatMap((s) => s.actions).filter((a) => a.edit?.op === 'patch');
    assert.deepEqual(patches.slice(0, 3).map((a) => a.edit?.op === 'patch' && a.edit.path), ['go.mod', 'README.zh-TW.md', 'README.zh-CN.md']);
    // The fixture's last two records are patch results for calls the file does not hold: warnings, not errors.
    assert.deepEqual(codex.issues?.map((i) => [i.line, i.severity]), [[109, 'warning'], [110, 'warning']]);

    const gemini = (await loadFile(path.join(EXAMPLES, GEMINI))).rollouts[0];
    assert.deepEqual(gemini.steps.flatMap((s) => s.actions).filter((a) => a.kind === 'file_edit').map((a) => a.edit?.op), ['write', 'replace']);
    assert.equal(gemini.steps[gemini.steps.length - 1].event?.kind, 'interrupted');
  });

  it('the folder\'s setting is the default include globs plus the session file names, which match the examples', () => {
    const settings = JSON.parse(fs.readFileSync(path.join(EXAMPLES, '.vscode', 'settings.json'), 'utf8'));
    assert.deepEqual(settings['trajectoryInspector.rollouts.include'], [...DEFAULT_INCLUDE, ...SESSION_GLOBS]);
    const globs = SESSION_GLOBS.map(globRegExp);
    for (const rel of [CLAUDE, CODEX, GEMINI]) {
      assert.equal(globs.filter((g) => g.test(rel)).length, 1, `${rel}: matched by one session glob`);
      assert.ok(!DEFAULT_INCLUDE.map(globRegExp).some((g) => g.test(rel)), `${rel}: not matched by the defaults`);
    }
    // Subagent transcripts are reached from their parent step, not listed: `agent-<id>.jsonl` matches none.
    assert.ok(!globs.some((g) => g.test('x/subagents/agent-a881341.jsonl')));
  });
});
