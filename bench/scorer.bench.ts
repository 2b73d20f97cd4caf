/**
 * Scorer benchmark: the built-in scorer's speed (steps/s), and the cost of the scorer protocol —
 * the same batches scored in-process (rules.ts `scoreRollout`) and through the built-in scorer
 * process (dist/scorers/builtin.js over JSON-RPC/stdio with zod validation both ways, via
 * core `ScorerClient`), measured in one run. Target: protocol overhead ≤ 10 % for 1,000-step batches.
 *
 * Input: the steps of real rollouts from the shared samples (SWE-agent, mini-swe-agent, OpenHands,
 * ATIF), cycled into rollouts of 50 steps with distinct ids.
 */
import * as path from 'node:path';
import { loadFile } from '../src/core/load';
import { ScorerClient } from '../src/core/scoring/client';
import { toScoreRollout } from '../src/core/scoring/input';
import { ScoreParams, ScoreResult, type ScoreRollout, type ScoreStep } from '../src/core/scoring/protocol';
import { scoreRollout } from '../src/scorers/builtin/rules';
import { fmt, median, REPO_ROOT, timeRuns, writeSection } from './lib';

const SAMPLES = path.resolve(REPO_ROOT, '..', 'shared', 'samples');
const FILES = [
  'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj',
  'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj',
  'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json',
  'openhands/harbor-rfc_openhands_trajectory.json',
  'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json',
];
const STEPS_PER_ROLLOUT = 50;

async function pool(): Promise<ScoreStep[]> {
  const steps: ScoreStep[] = [];
  for (const f of FILES) {
    const loaded = await loadFile(path.join(process.env.SAMPLES_DIR ?? SAMPLES, f));
    for (const r of loaded.rollouts) steps.push(...toScoreRollout(r).steps);
  }
  return steps;
}

function batch(steps: ScoreStep[], total: number, tag: string): ScoreRollout[] {
  const out: ScoreRollout[] = [];
  for (let n = 0, r = 0; n < total; r++) {
    const len = Math.min(STEPS_PER_ROLLOUT, total - n);
    out.push({
      id: `${tag}-${r}`,
      task: { id: `task-${r % 7}`, instruction: 'Fix the failing test.' },
      steps: Array.from({ length: len }, (_, i) => ({ ...steps[(n + i) % steps.length], index: i })),
    });
    n += len;
  }
  return out;
}

async function main(): Promise<void> {
  const steps = await pool();
  const bytesPerStep = JSON.stringify(steps).length / steps.length;
  const client = await ScorerClient.start(
    { command: process.execPath, args: [path.join(REPO_ROOT, 'dist', 'scorers', 'builtin.js')] },
    { client: { name: 'bench', version: '0' }, initTimeoutMs: 30_000 },
  );
  const rows: string[] = [];
  const parts: string[] = [];
  let target = '';
  try {
    for (const size of [100, 1_000, 10_000]) {
      const b = batch(steps, size, `b${size}`);
      const runs = size >= 10_000 ? 7 : 15;
      // Interleave the two so drift on a shared machine hits both alike.
      const inproc: number[] = [];
      const proto: number[] = [];
      await client.score(b, { timeoutMs: 120_000 });
      for (let i = 0; i < runs; i++) {
        inproc.push(...(await timeRuns(() => b.map((r) => scoreRollout(r)), 1, i === 0 ? 1 : 0)));
        proto.push(...(await timeRuns(() => client.score(b, { timeoutMs: 120_000 }), 1, 0)));
      }
      const mi = median(inproc);
      const mp = median(proto);
      const overhead = (mp - mi) / mi;
      rows.push(`| ${size.toLocaleString('en')} | ${b.length} | ${fmt(mi, 1)} | ${fmt(mp, 1)} | ${Math.round((size / mi) * 1000).toLocaleString('en')} | ${Math.round((size / mp) * 1000).toLocaleString('en')} | ${fmt(overhead * 100, 0)} % |`);
      if (size === 1_000) target = `Protocol overhead for 1,000-step batches: **${fmt(overhead * 100, 0)} %** (target ≤ 10 %: ${overhead <= 0.1 ? 'met' : 'NOT met'}).`;
    }
    // Where the protocol's time goes, for one 1,000-step batch (each part timed alone, in this process).
    const b = batch(steps, 1_000, 'parts');
    const params = { rollouts: b };
    const text = JSON.stringify(params);
    const result = { rollouts: b.map((r) => ({ id: r.id, steps: scoreRollout(r) })) };
    const part = async (name: string, fn: () => unknown): Promise<void> => void parts.push(`| ${name} | ${fmt(median(await timeRuns(fn, 15, 2)), 2)} |`);
    await part('JSON.stringify the request (client)', () => JSON.stringify(params));
    await part('UTF-8 encode the request', () => Buffer.from(text, 'utf8'));
    await part('UTF-8 decode + JSON.parse the request (scorer)', () => JSON.parse(Buffer.from(text, 'utf8').toString('utf8')));
    await part('zod ScoreParams (scorer)', () => ScoreParams.safeParse(params));
    await part('rules (the scoring itself)', () => b.map((r) => scoreRollout(r)));
    await part('zod ScoreResult (client)', () => ScoreResult.safeParse(result));
    parts.unshift(`Request size for 1,000 steps: ${fmt(text.length / 2 ** 20, 2)} MiB.`, '', '| part (1,000 steps) | ms |', '|---|---:|');
  } finally {
    await client.shutdown();
  }
  writeSection(
    'scorer',
    'Scorer: built-in rules and protocol overhead',
    `Steps are real steps of ${FILES.length} sample rollouts (${steps.length} distinct, ${fmt(bytesPerStep / 1024, 1)} KiB of JSON each on average), cycled into rollouts of ${STEPS_PER_ROLLOUT} steps.
"In-process" calls the rules directly; "protocol" sends the same batch to the built-in scorer process (dist/scorers/builtin.js) through core \`ScorerClient\`: JSON-RPC over stdio with LSP framing, zod validation of params in the scorer and of the result in the client, result checks (ids, indexes, range). Medians of interleaved runs.

| steps / batch | rollouts | in-process ms | protocol ms | in-process steps/s | protocol steps/s | overhead |
|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

${target}

${parts.join('\n')}

Overhead = (protocol − in-process) / in-process, so it is large when scoring is cheap: the built-in rules spend about as long per step as serialising, piping, parsing and validating it (the rest of the gap is the pipe and the two processes sharing two cores). For a GPU PRM, whose forward pass costs milliseconds per step, the same absolute protocol cost is a small fraction.`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
