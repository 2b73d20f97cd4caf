/**
 * Issue 8 figures: workspace search with ripgrep vs. loading every file (the fallback without rg),
 * and step alignment of long rollouts.
 *
 * Inputs (bench/out/compare-search/, reused): 400 copies of the real SWE-agent sample
 * (v0.7 marshmallow, 80 KB, 16 steps) in which copy k has its first command changed to
 * `ls -F # run k` (so a search for `# run 123` hits one file), and 100 copies of the real NeMo-Gym
 * JSONL (5 rollouts each): about 40 MB in 500 files.
 * Target (a ratio in this one run): a rare-text search with rg takes at most 1/3 of the time of
 * loading every file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { alignRollouts } from '../src/core/compare/align';
import { loadFile } from '../src/core/load';
import type { Rollout } from '../src/core/model';
import { searchRollouts } from '../src/core/search/workspaceSearch';
import { OUT_DIR, REPO_ROOT, fmt, median, timeRuns, writeSection } from './lib';

const SAMPLES = process.env.SAMPLES_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'samples');
const SWE = path.join(SAMPLES, 'swe-agent', 'v0.7_default__marshmallow-code__marshmallow-1867.traj');
const NEMO = path.join(SAMPLES, 'openai-responses', 'nemo-gym_mini_swe_agent_2_example_rollouts.jsonl');
const RG = process.env.RG_PATH ?? '/usr/bin/rg';
const DIR = path.join(OUT_DIR, 'compare-search');

function build(): string[] {
  const files: string[] = [];
  fs.mkdirSync(DIR, { recursive: true });
  const swe = JSON.parse(fs.readFileSync(SWE, 'utf8'));
  for (let k = 0; k < 400; k++) {
    const f = path.join(DIR, `swe-${k}.traj`);
    if (!fs.existsSync(f)) {
      swe.trajectory[0].action = `ls -F # run ${k}\n`;
      fs.writeFileSync(f, JSON.stringify(swe, null, 2));
    }
    files.push(f);
  }
  const nemo = fs.readFileSync(NEMO, 'utf8');
  for (let k = 0; k < 100; k++) {
    const f = path.join(DIR, `rollouts-${k}.jsonl`);
    if (!fs.existsSync(f)) fs.writeFileSync(f, nemo);
    files.push(f);
  }
  return files;
}

/** A long rollout: the sample's steps repeated `times` times (re-indexed). */
function longRollout(r: Rollout, times: number): Rollout {
  const steps = Array.from({ length: times }, () => r.steps).flat().map((s, i) => ({ ...s, index: i }));
  return { ...r, steps };
}

async function main(): Promise<void> {
  const files = build();
  const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
  const q = { pattern: '# run 123', fields: ['command' as const] };
  const check = await searchRollouts(files, q, { rgPath: RG });
  if (check.steps !== 1) throw new Error(`expected 1 step, found ${check.steps}`);
  const withRg = await timeRuns(() => searchRollouts(files, q, { rgPath: RG }), 5);
  const loadAll = await timeRuns(() => searchRollouts(files, q, { rgPath: null }), 3);
  const common = { pattern: 'python', fields: ['command' as const] };
  const commonRg = await timeRuns(() => searchRollouts(files, common, { rgPath: RG }), 3);
  const commonAll = await timeRuns(() => searchRollouts(files, common, { rgPath: null }), 3);
  const commonHits = (await searchRollouts(files, common, { rgPath: RG })).steps;

  const base = (await loadFile(SWE)).rollouts[0];
  const rows: string[] = [];
  for (const times of [1, 16, 64]) {
    const a = longRollout(base, times);
    const b = { ...a, steps: [...a.steps.slice(0, 5), { ...a.steps[7], index: 5 }, ...a.steps.slice(5)].map((s, i) => ({ ...s, index: i })) };
    const t = median(await timeRuns(() => alignRollouts(a, b), 5));
    const res = alignRollouts(a, b);
    rows.push(`| ${a.steps.length} vs ${b.steps.length} | ${fmt(t, 1)} | ${res.counts['only-right']} only right, ${res.counts.same} same |`);
  }
  const ratio = median(withRg) / median(loadAll);
  writeSection(
    'compare-search',
    'Compare and search (issue 8)',
    `
Workspace: ${files.length} rollout files, ${(bytes / 2 ** 20).toFixed(1)} MiB (copies of the real SWE-agent and NeMo-Gym samples).

| Search | with ripgrep (ms, median) | loading every file (ms, median) | ratio |
|---|---|---|---|
| rare text \`# run 123\` in commands (1 step) | ${fmt(median(withRg), 0)} | ${fmt(median(loadAll), 0)} | ${fmt(ratio, 3)} |
| common text \`python\` in commands (${commonHits} steps) | ${fmt(median(commonRg), 0)} | ${fmt(median(commonAll), 0)} | ${fmt(median(commonRg) / median(commonAll), 3)} |

Target: rare-text search with rg ≤ 1/3 of loading every file: **${ratio <= 1 / 3 ? 'met' : 'NOT met'}** (${fmt(ratio, 3)}).
A common word makes rg hit nearly every file, which then has to be loaded anyway: rg only saves the files without a hit.

| Alignment (steps left vs right, one inserted) | ms (median of 5) | result |
|---|---|---|
${rows.join('\n')}
`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
