// Cases for memory.test.ts (run inside the watchdog's worker): big valid inputs whose memory must
// follow what is shown, not the file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
