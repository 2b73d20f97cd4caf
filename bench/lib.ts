/**
 * Shared helpers for the benchmarks in bench/. Each benchmark is a script `bench/<name>.bench.ts`
 * that measures, then calls `writeSection(name, markdown)`; `npm run bench` (bench/run.mjs) runs
 * them all and composes bench/RESULTS.md from bench/results/*.md with the machine they ran on.
 *
 * Rules (see the developers' guide): targets are ratios measured in one run on the same machine,
 * figures are medians of several runs, and generated inputs go under bench/out/ (git-ignored).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Repository root (bench/ is one level below it). */
export const REPO_ROOT = path.resolve(__dirname, '..');
/** Where benchmarks write generated inputs (git-ignored, reused between runs when present). */
export const OUT_DIR = path.join(REPO_ROOT, 'bench', 'out');
/** Where each benchmark writes its markdown section. */
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

/** Median of a non-empty list of numbers. Throws on an empty list. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of an empty list');
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs `fn` `runs` times (after `warmup` unmeasured runs) and returns the wall times in
 * milliseconds, in run order.
 */
export async function timeRuns(fn: () => unknown | Promise<unknown>, runs: number, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times;
}

/** One line describing this machine: CPU model, cores, memory, OS, Node version. */
export function machineLine(): string {
  const cpus = os.cpus();
  const gb = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length} cores, ${gb} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Formats a number with `digits` significant decimals for a results table. */
export function fmt(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

/**
 * Writes this benchmark's markdown section to bench/results/<name>.md (a `## ` heading is added),
 * stamped with the machine and the command that reproduces it.
 */
export function writeSection(name: string, title: string, body: string): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const text = [
    `## ${title}`,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
    `Reproduce: \`npm run bench -- ${name}\``,
    '',
    body.trim(),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.md`), text);
  console.log(text);
}
