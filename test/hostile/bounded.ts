/**
 * Watchdog for the hostile-input tier (test/hostile): runs one case in a worker thread with a wall
 * clock limit and a heap limit, so a case that freezes (a synchronous loop never yields to mocha's
 * own timeout) or runs away with memory fails alone, with the number that was hit, instead of
 * hanging or killing the test run.
 *
 * A case is an exported async (or sync) function of a TypeScript module, called with JSON-able
 * arguments; it runs in a fresh worker (tsx registered), and its JSON-able return value comes back.
 */
import { Worker } from 'node:worker_threads';
import * as path from 'node:path';

/** Limits of one bounded case. */
export interface Bounds {
  /** Wall-clock limit in ms (default 20,000). The worker is terminated past it. */
  timeoutMs?: number;
  /** V8 old-generation limit of the worker in MiB (default 512). Past it the worker dies (ERR_WORKER_OUT_OF_MEMORY). */
  maxHeapMb?: number;
}

/** Outcome of a bounded case: its value, how long it took (ms) and the worker's peak heap seen (bytes). */
export interface BoundedResult<T> {
  value: T;
  ms: number;
  /** The largest `heapUsed` sampled in the worker every 20 ms and at the end (bytes). */
  peakHeapBytes: number;
}

/** Thrown when a case ran past its time limit or out of its heap; `kind` says which. */
export class BoundExceeded extends Error {
  constructor(readonly kind: 'timeout' | 'heap', message: string) {
    super(message);
    this.name = 'BoundExceeded';
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require('tsx/cjs');
let peak = 0;
const sample = () => { const h = process.memoryUsage().heapUsed; if (h > peak) peak = h; };
const timer = setInterval(sample, 20); timer.unref();
(async () => {
  const t0 = performance.now();
  try {
    const mod = require(workerData.file);
    const fn = mod[workerData.name];
    if (typeof fn !== 'function') throw new Error('no exported function ' + workerData.name + ' in ' + workerData.file);
    const value = await fn(...workerData.args);
    sample();
    parentPort.postMessage({ ok: true, value: value === undefined ? null : value, ms: performance.now() - t0, peak });
  } catch (e) {
    sample();
    parentPort.postMessage({ ok: false, error: (e && e.stack) || String(e), ms: performance.now() - t0, peak });
  }
})();
`;

/**
 * Runs `name` exported by the module `file` (absolute path, or relative to test/hostile) with `args`
 * in a worker thread under `bounds`.
 * @throws BoundExceeded when the case ran past `timeoutMs` or out of `maxHeapMb`.
 * @throws Error with the case's own stack when the case threw.
 */
export async function runBounded<T = unknown>(file: string, name: string, args: unknown[] = [], bounds: Bounds = {}): Promise<BoundedResult<T>> {
  const timeoutMs = bounds.timeoutMs ?? 20_000;
  const maxHeapMb = bounds.maxHeapMb ?? 512;
  const abs = path.isAbsolute(file) ? file : path.join(__dirname, file);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file: abs, name, args },
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    stdout: false,
    stderr: false,
  });
  return new Promise<BoundedResult<T>>((resolve, reject) => {
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const timer = setTimeout(() => {
      finish(() => reject(new BoundExceeded('timeout', `${name} ran past ${timeoutMs} ms`)));
      void worker.terminate();
    }, timeoutMs);
    worker.on('message', (m: { ok: boolean; value?: T; error?: string; ms: number; peak: number }) => {
      finish(() => (m.ok ? resolve({ value: m.value as T, ms: m.ms, peakHeapBytes: m.peak }) : reject(new Error(m.error))));
      void worker.terminate();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      finish(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new BoundExceeded('heap', `${name} ran out of its ${maxHeapMb} MiB heap`)
            : e,
        ),
      );
    });
    worker.on('exit', (code) => finish(() => reject(new Error(`${name}: worker exited with code ${code} before answering`))));
  });
}
