/**
 * Input of the scorer benchmarks (bench/scorer.bench.ts, bench/scorerModel.bench.ts): the steps of
 * real rollouts from the shared samples (SWE-agent, mini-swe-agent, OpenHands, ATIF) in protocol
 * shape (`toScoreRollout`), cycled into rollouts of a given length with distinct ids.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../src/core/load';
import { toScoreRollout } from '../src/core/scoring/input';
import type { ScoreRollout, ScoreStep } from '../src/core/scoring/protocol';
import { REPO_ROOT } from './lib';

const SAMPLES = path.resolve(REPO_ROOT, '..', 'shared', 'samples');
/** Sample files (under $SAMPLES_DIR, default ../shared/samples) whose steps make up the batches. */
export const FILES = [
  'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj',
  'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj',
  'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json',
  'openhands/harbor-rfc_openhands_trajectory.json',
  'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json',
];

/** Every step of the sample files, in protocol shape. */
export async function pool(): Promise<ScoreStep[]> {
  const steps: ScoreStep[] = [];
  for (const f of FILES) {
    const loaded = await loadFile(path.join(process.env.SAMPLES_DIR ?? SAMPLES, f));
    for (const r of loaded.rollouts) steps.push(...toScoreRollout(r).steps);
  }
  return steps;
}

/** `total` steps of `steps` (cycled) as rollouts of `perRollout` steps, ids `<tag>-<n>`. */
export function batch(steps: ScoreStep[], total: number, tag: string, perRollout: number): ScoreRollout[] {
  const out: ScoreRollout[] = [];
  for (let n = 0, r = 0; n < total; r++) {
    const len = Math.min(perRollout, total - n);
    out.push({
      id: `${tag}-${r}`,
      task: { id: `task-${r % 7}`, instruction: 'Fix the failing test.' },
      steps: Array.from({ length: len }, (_, i) => ({ ...steps[(n + i) % steps.length], index: i })),
    });
    n += len;
  }
  return out;
}

/**
 * CPU time (user + system, all threads, milliseconds) a process has used so far, from
 * /proc/<pid>/stat (clock ticks of 10 ms: sum it over many runs). NaN where /proc is not there.
 */
export function procCpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime, stime (fields 14, 15) at USER_HZ = 100
  } catch {
    return NaN;
  }
}

/** CPU time (user + system, milliseconds) this Node process has used so far. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
