// Cases for memory.test.ts (run inside the watchdog's worker): big valid inputs whose memory must
// follow what is shown, not the file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { writeBigAtif, writeTinyRows } from '../../bench/genHuge';
import { loadPath } from '../../src/core/load';
import { openSteppedRollout } from '../../src/core/scale/stepIndex';
import { writeShowJson } from '../../src/cli/showJson';

/** A generated file under the OS temp folder, reused by later cases of the same run (same name, same size). */
function generated(name: string, make: (file: string) => number): { file: string; bytes: number } {
  const dir = path.join(os.tmpdir(), 'ti-hostile-memory');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  const bytes = fs.existsSync(file) ? fs.statSync(file).size : make(file);
  return { file, bytes };
}

/** Writes an ATIF of `steps` steps (once per run). Returns its path and size. */
export function makeBigAtif(steps: number): { file: string; bytes: number } {
  return generated(`atif-${steps}.trajectory.json`, (f) => writeBigAtif(f, steps));
}

/** Opens the ATIF of `steps` steps by its steps and reads the first window of `window` steps. */
export async function firstWindowOfBigAtif(steps: number, window: number): Promise<{ count: number; got: number; firstRole: string; lastIndex: number; bytes: number; rssBytes: number }> {
  const { file, bytes } = makeBigAtif(steps);
  const r = await openSteppedRollout(file);
  const first = await r.read(0, window);
  return { count: r.count, got: first.length, firstRole: first[0].role, lastIndex: first[first.length - 1].index, bytes, rssBytes: process.memoryUsage().rss };
}

/** Writes a JSONL of `rows` tiny rows (once per run). */
export function makeTinyRows(rows: number): { file: string; bytes: number } {
  return generated(`tiny-${rows}.jsonl`, (f) => writeTinyRows(f, rows));
}

/** `show --json` of the JSONL of `rows` tiny rows into a sink that counts the text (and checks it ends as a document). */
export async function showJsonOfTinyRows(rows: number): Promise<{ chars: number; rollouts: number; tail: string; longestChunk: number }> {
  const { file } = makeTinyRows(rows);
  const result = await loadPath(file);
  let chars = 0;
  let longestChunk = 0;
  let tail = '';
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  await writeShowJson(result, (c) => {
    chars += c.length;
    longestChunk = Math.max(longestChunk, c.length);
    tail = (tail + c).slice(-200);
    if (!sink.write(c)) return new Promise<void>((r) => sink.once('drain', () => r()));
  });
  return { chars, rollouts: result.files[0]?.rollouts.length ?? 0, tail, longestChunk };
}

/** What `show --json` of a generated file gave in a child process. */
export interface ShowJsonChild {
  /** Size of the input (bytes). */
  bytes: number;
  /** Exit code of the CLI (0: the case throws otherwise). */
  code: number | string | null;
  /** Peak resident set size of the CLI process (KiB, its own process.resourceUsage().maxRSS). */
  maxRssKb: number;
  /** From the output, parsed as JSON: rollouts, steps of all rollouts, rollouts per file, warning messages. */
  rollouts: number;
  steps: number;
  fileRollouts: number[];
  warnings: string[];
}

/**
 * Runs the built CLI (dist/cli.js) `show --json` on the generated ATIF of `n` steps (`atif`) or JSONL
 * of `n` tiny rows (`rows`) in a child process, streamed from 1 byte on
 * (TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES) so that small files take the path of big ones, its output
 * written to a file and parsed here. The child's V8 heap is capped at `maxOldSpaceMb` MiB
 * (`--max-old-space-size`): past it the child dies (exit code 134, no document).
 */
export async function showJsonInChild(kind: 'atif' | 'rows', n: number, maxOldSpaceMb: number): Promise<ShowJsonChild> {
  const { file, bytes } = kind === 'atif' ? makeBigAtif(n) : makeTinyRows(n);
  const cli = path.join(__dirname, '..', '..', 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-show-rss-'));
  const out = path.join(dir, 'out.json');
  const rss = path.join(dir, 'maxrss');
  const fd = fs.openSync(out, 'w');
  try {
    const code = await new Promise<number | string | null>((resolve, reject) => {
      const child = spawn(process.execPath, [`--max-old-space-size=${maxOldSpaceMb}`, '-r', path.join(__dirname, 'maxRss.cjs'), cli, 'show', '--json', file], {
        stdio: ['ignore', fd, 'ignore'],
        env: { ...process.env, TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES: '1', TI_MAXRSS_FILE: rss },
      });
      child.on('error', reject);
      child.on('exit', (c, signal) => resolve(c ?? signal));
    });
    if (code !== 0) throw new Error(`show --json ${path.basename(file)} (${bytes} bytes) exited with ${code} under a ${maxOldSpaceMb} MiB heap`);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as { rollouts: { steps: unknown[] }[]; files: { rollouts: number }[]; warnings: { message: string }[] };
    return {
      bytes,
      code,
      maxRssKb: Number(fs.readFileSync(rss, 'utf8')),
      rollouts: doc.rollouts.length,
      steps: doc.rollouts.reduce((k, r) => k + r.steps.length, 0),
      fileRollouts: doc.files.map((f) => f.rollouts),
      warnings: doc.warnings.map((w) => w.message),
    };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
