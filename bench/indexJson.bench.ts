/**
 * Indexing a ~1 GB single JSON file whose top level is an array of rollout rows
 * (src/core/scale/arrayIndex.ts, through `buildIndex`) against a bare `JSON.parse` of every item's
 * bytes alone (read the same way, 4 MiB chunks, the item boundaries given for free from the index),
 * in the same run. A `JSON.parse` of the whole file is impossible at this size: its text is longer
 * than V8's longest string (the bench shows `readFileSync(…, 'utf8')` failing, and `loadFile`
 * refusing it). Also: the time until the first rollouts are listed, and the peak memory (max RSS)
 * of a fresh Node process that indexes the file, lists it and opens rollouts across it.
 *
 * Inputs (bench/genJsonArray.ts, written as `json.dump(rows, f, indent=2)` writes them):
 * - bench/out/array-1g.json: ~1 GB of the real NeMo-Gym sample rows (the byte-scan fast path);
 * - bench/out/processbench-256m.json: ~256 MB of the real ProcessBench gsm8k items (small
 *   items, ~1.4 KB each: the per-item costs show).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../src/core/errors';
import { loadFile } from '../src/core/load';
import { buildIndex, type IndexedRollout } from '../src/core/scale/rolloutIndex';
import { generateJsonArray, type ArrayShape } from './genJsonArray';
import { fmt, median, OUT_DIR, timeRuns, writeSection } from './lib';

const RUNS = 3;

/** JSON.parse of every item's bytes alone, read in 4 MiB chunks (a window refilled at the first item it does not hold). */
async function bareParse(file: string, entries: readonly IndexedRollout[]): Promise<number> {
  const fh = await fs.promises.open(file, 'r');
  let buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  let winStart = 0;
  let winLen = 0;
  let n = 0;
  try {
    for (const e of entries) {
      if (e.offset + e.length > winStart + winLen) {
        if (e.length > buf.length) buf = Buffer.allocUnsafe(e.length);
        winStart = e.offset;
        winLen = 0;
        while (winLen < buf.length) {
          const { bytesRead } = await fh.read(buf, winLen, buf.length - winLen, winStart + winLen);
          if (bytesRead === 0) break;
          winLen += bytesRead;
        }
      }
      JSON.parse(buf.toString('utf8', e.offset - winStart, e.offset - winStart + e.length));
      n++;
    }
  } finally {
    await fh.close();
  }
  return n;
}

interface Measured {
  file: string;
  shape: ArrayShape;
  mb: number;
  items: number;
  parseTimes: number[];
  indexTimes: number[];
  parseCpu: number[];
  indexCpu: number[];
  firsts: number[];
  browse: { maxRssMb: number; baselineRssMb: number; opened: number; openMs: number };
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function measure(name: string, bytes: number, shape: ArrayShape): Promise<Measured> {
  const file = path.join(OUT_DIR, name);
  const t0 = Date.now();
  const gen = generateJsonArray(file, bytes, shape);
  console.log(`input: ${file} (${gen.items} items, ${(gen.size / 2 ** 20).toFixed(0)} MiB) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const m: Measured = { file, shape, mb: gen.size / 2 ** 20, items: gen.items, parseTimes: [], indexTimes: [], parseCpu: [], indexCpu: [], firsts: [], browse: { maxRssMb: 0, baselineRssMb: 0, opened: 0, openMs: 0 } };
  // One warm-up of each (page cache, JIT); the index's entries give the bare parse its item boundaries.
  let entries = (await buildIndex(file)).entries;
  if (entries.length !== gen.items) throw new Error(`index has ${entries.length} rollouts, the file ${gen.items} items`);
  await bareParse(file, entries);
  for (let i = 0; i < RUNS; i++) {
    let c0 = cpuMs();
    m.parseTimes.push(...(await timeRuns(() => bareParse(file, entries), 1, 0)));
    m.parseCpu.push(cpuMs() - c0);
    let first = -1;
    c0 = cpuMs();
    const start = process.hrtime.bigint();
    m.indexTimes.push(
      ...(await timeRuns(async () => {
        const idx = await buildIndex(file, {
          onProgress: (_i, added) => {
            if (first < 0 && added.length) first = Number(process.hrtime.bigint() - start) / 1e6;
          },
        });
        entries = idx.entries;
      }, 1, 0)),
    );
    m.indexCpu.push(cpuMs() - c0);
    m.firsts.push(first);
    console.log(`${name} run ${i + 1}: bare parse ${fmt(m.parseTimes[i], 0)} ms (${fmt(m.parseCpu[i], 0)} ms CPU), index ${fmt(m.indexTimes[i], 0)} ms (${fmt(m.indexCpu[i], 0)} ms CPU), first rollouts after ${fmt(first, 0)} ms`);
  }
  const child = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--browse', file], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`browse run failed: ${child.stderr}`);
  m.browse = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as Measured['browse'];
  return m;
}

function rows(m: Measured): string {
  const p = median(m.parseTimes);
  const x = median(m.indexTimes);
  const wallRatios = m.indexTimes.map((t, i) => t / m.parseTimes[i]);
  const cpuRatios = m.indexCpu.map((t, i) => t / m.parseCpu[i]);
  return `
| measure | median | runs |
|---|---|---|
| bare \`JSON.parse\` of every item's bytes alone (4 MiB chunks) | ${fmt(p, 0)} ms (${fmt(m.mb / (p / 1000), 0)} MB/s) | ${m.parseTimes.map((t) => fmt(t, 0)).join(', ')} |
| index (\`buildIndex\`, fresh) | ${fmt(x, 0)} ms (${fmt(m.mb / (x / 1000), 0)} MB/s) | ${m.indexTimes.map((t) => fmt(t, 0)).join(', ')} |
| bare parse, CPU time (user + system, whole process) | ${fmt(median(m.parseCpu), 0)} ms | ${m.parseCpu.map((t) => fmt(t, 0)).join(', ')} |
| index, CPU time | ${fmt(median(m.indexCpu), 0)} ms | ${m.indexCpu.map((t) => fmt(t, 0)).join(', ')} |
| **index / bare parse, CPU time** | **${fmt(median(cpuRatios))}×** | ${cpuRatios.map((r) => fmt(r)).join(', ')} (per run) |
| index / bare parse, wall time | ${fmt(median(wallRatios))}× | ${wallRatios.map((r) => fmt(r)).join(', ')} (per run) |
| first rollouts listed (first \`onProgress\` with rows) | ${fmt(median(m.firsts), 0)} ms | ${m.firsts.map((t) => fmt(t, 0)).join(', ')} |
| peak memory of a fresh process: index, list, open ${m.browse.opened} rollouts across the file | **${fmt(m.browse.maxRssMb, 0)} MB max RSS** (${fmt(m.browse.baselineRssMb, 0)} MB before; ${fmt(m.browse.openMs, 1)} ms median to open one) | |
`;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--browse') return browse(process.argv[3]);
  const big = await measure('array-1g.json', 1024 * 1024 * 1024, 'nemo');
  // What the full load does with it: it cannot hold the text.
  let whole = '';
  try {
    fs.readFileSync(big.file, 'utf8');
    whole = 'read (unexpected)';
  } catch (e) {
    whole = (e as Error).message.split('\n')[0];
  }
  let full = '';
  try {
    await loadFile(big.file);
    full = 'loaded (unexpected)';
  } catch (e) {
    full = e instanceof RolloutLoadError ? `${e.issues[0].expected}, found ${e.issues[0].found}` : (e as Error).message.split('\n')[0];
  }
  const pb = await measure('processbench-256m.json', 256 * 1024 * 1024, 'processbench');

  writeSection(
    'indexJson',
    'Lazy index of a 1 GB single JSON array file',
    `
${RUNS} runs of each measure, interleaved (parse, index, parse, index, …), after one warm-up of each (file in the page cache); medians. The machine is shared with other jobs, so wall times swing; the ratio is taken per run and on CPU time too (the process's own user + system time).
The baseline parses each item's bytes alone with \`JSON.parse\`, the item boundaries given for free (from the index): a \`JSON.parse\` of the whole file is impossible at this size — \`fs.readFileSync(file, 'utf8')\` fails with "${whole}", and \`loadFile\` refuses it (expected ${full}).

### NeMo-Gym rows (byte-scan fast path)

Input: \`bench/out/array-1g.json\`, ${fmt(big.mb, 0)} MiB, ${big.items} items made from the real NeMo-Gym sample rows, pretty-printed (indent 2; bench/genJsonArray.ts).
${rows(big)}
### ProcessBench items (small items: the per-item costs show)

Input: \`bench/out/processbench-256m.json\`, ${fmt(pb.mb, 0)} MiB, ${pb.items} items made from the real ProcessBench \`gsm8k.json\` items, pretty-printed (indent 2).
${rows(pb)}`,
  );
}

/** The browsing run in its own process: prints its max RSS as JSON. */
async function browse(file: string): Promise<void> {
  const { itemLocation, loadItem } = await import('../src/core/scale/arrayIndex');
  const { summarizeIndexed } = await import('../src/core/scale/summaries');
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const idx = await buildIndex(file);
  const summaries = summarizeIndexed(idx.entries);
  const picks = [...new Set([0, idx.entries.length - 1, ...Array.from({ length: 18 }, (_, k) => Math.floor(((k + 1) * idx.entries.length) / 19))])];
  const times: number[] = [];
  let steps = 0;
  for (const i of picks) {
    const t = process.hrtime.bigint();
    const r = await loadItem(file, idx.format, itemLocation(idx.entries[i]));
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.steps.length !== summaries[i].steps) throw new Error(`rollout ${i}: ${r.steps.length} steps opened, ${summaries[i].steps} listed`);
    steps += r.steps.length;
  }
  if (steps === 0) throw new Error('no steps opened');
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ maxRssMb, baselineRssMb, opened: picks.length, openMs: median(times) }));
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
