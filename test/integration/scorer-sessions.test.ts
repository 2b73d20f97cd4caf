/**
 * Scores of the coding-agent session formats work like any rollout's (issue 19, "Also"): real
 * Claude Code and Codex CLI sessions from ../shared/format-census scored through the built CLI
 * (`dist/cli.js score --json`) with the built-in scorer and with a third-party scorer process
 * (test/fixtures/scorers/fake-scorer.js): exit 0, one score line per scored agent step of the loaded
 * rollouts, each naming a real rollout and step, and the same scores again from the cache.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadPath } from '../../src/core/load';
import { censusFile, REPO_ROOT, tmpDir } from '../unit/samples';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'scorers', 'fake-scorer.js');
const SESSIONS = ['claude-code/short.jsonl', 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl', 'codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl'];

function score(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'score', '--json', ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI score of Claude Code and Codex sessions (census files)', function () {
  this.timeout(240_000);
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  });

  for (const rel of SESSIONS) {
    it(`${rel}: every agent step scored by the built-in and a third-party scorer, the same again from the cache`, async () => {
      const file = censusFile(rel);
      const loaded = await loadPath(file);
      const agentSteps = new Map(loaded.files.flatMap((f) => f.rollouts).map((r) => [r.id, new Set(r.steps.filter((s) => s.role === 'agent' && !s.copiedContext).map((s) => s.index))]));
      const nAgent = [...agentSteps.values()].reduce((n, s) => n + s.size, 0);
      assert.ok(nAgent > 0, 'the session has agent steps');
      const cache = tmpDir();
      const builtin = score(file, '--cache', cache);
      assert.equal(builtin.code, 0, builtin.stderr);
      const lines = builtin.stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(lines.length > 0);
      for (const l of lines) assert.ok(agentSteps.get(l.rolloutId)?.has(l.stepIndex), `score for a real agent step: ${l.rolloutId} ${l.stepIndex}`);
      const again = score(file, '--cache', cache);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, builtin.stdout, 'the same scores from the cache');
      const third = score(file, '--scorer', '--', process.execPath, FAKE, 'good');
      assert.equal(third.code, 0, third.stderr);
      const tl = third.stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(tl.length, nAgent, 'one score per agent step');
      assert.ok(tl.every((l) => l.value === 0.5 && agentSteps.get(l.rolloutId)?.has(l.stepIndex)));
    });
  }
});
