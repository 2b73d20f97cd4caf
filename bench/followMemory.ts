/**
 * One memory measurement for bench/follow.bench.ts, in a process of its own (so that what an
 * earlier measurement left on the heap or in RSS does not count):
 *
 *   node --import tsx --expose-gc bench/followMemory.ts MODE FILE
 *
 * MODE: `open` (core JsonlFollower.open: the first steps, as the timeline opens a streamable
 * session), `caught-up` (the same, then the rest read in 512 KiB slices: the follower holding the
 * whole session), `worker` (the full load in the load worker, core/loadPool.ts with dist/loadWorker.js,
 * the worker kept alive as the host keeps it for LOAD_WORKER_IDLE_MS) or `in-thread` (core
 * `loadFile`). Prints one JSON line: the host thread's heap after a full GC (`heapMB`, less the
 * baseline measured after the imports), the process's RSS then (`rssMB`, worker threads included)
 * and its peak (`peakRssMB`, VmHWM), in MiB, and the steps held.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlFollower } from '../src/core/follow';
import { loadFile, type LoadedFile } from '../src/core/load';
import { LoadPool } from '../src/core/loadPool';
import { REPO_ROOT } from './lib';

const MiB = 1024 * 1024;
declare const gc: (() => void) | undefined;

/**
 * Peak RSS of this process in KiB: /proc/self/status VmHWM (the address space's high-water mark,
 * which starts anew at exec), else getrusage's maxrss (which Linux keeps across exec, so a child
 * spawned by a large parent would report the parent's peak).
 */
function peakRss(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

async function settleGc(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  if (!gc) throw new Error('run with --expose-gc');
  await settleGc();
  const base = process.memoryUsage();
  let held: LoadedFile | null = null;
  let pool: LoadPool | null = null;
  if (mode === 'open' || mode === 'caught-up') {
    const f = await JsonlFollower.open(file);
    if (!f) throw new Error(`${file}: not followed`);
    if (mode === 'caught-up') while (!f.caughtUp) await f.read({ maxBytes: 512 * 1024 });
    held = f.loaded;
    (globalThis as any).__keep = f;
  } else if (mode === 'worker') {
    pool = new LoadPool({ script: path.join(REPO_ROOT, 'dist', 'loadWorker.js'), size: 1, idleMs: 60_000 });
    held = await pool.load(file);
  } else if (mode === 'in-thread') {
    held = await loadFile(file);
  } else throw new Error(`unknown mode ${mode}`);
  await settleGc();
  const m = process.memoryUsage();
  const out = {
    mode,
    steps: held.rollouts.reduce((n, r) => n + r.steps.length, 0),
    heapMB: (m.heapUsed - base.heapUsed) / MiB,
    rssMB: m.rss / MiB,
    baseRssMB: base.rss / MiB,
    peakRssMB: peakRss() / 1024,
  };
  console.log(JSON.stringify(out));
  await pool?.dispose();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
