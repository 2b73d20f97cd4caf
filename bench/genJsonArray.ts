/**
 * Generates large single JSON files whose top level is an array of rollout rows, for the JSON array
 * index benchmark (bench/indexJson.bench.ts) and tests: written as Python's `json.dump(rows, f,
 * indent=2)` writes them (one item after another, pretty-printed, 2-space indent), from the real
 * samples' rows:
 * - `nemo`: the NeMo-Gym rows of bench/genDump.ts (`dumpRow`: GRPO groups of 4, unique ids), each
 *   a valid `openai-responses` rollout;
 * - `processbench`: the items of the real ProcessBench `gsm8k.json` with their `id` made unique
 *   (`<id>-<n>`), each a valid `processbench` record.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { dumpRow, sampleRows, samplesDir } from './genDump';

export type ArrayShape = 'nemo' | 'processbench';

/** Item `i` of a generated array of `shape`, from the parsed sample rows `bases`. */
export function arrayItem(shape: ArrayShape, bases: readonly Record<string, unknown>[], i: number): Record<string, unknown> {
  if (shape === 'nemo') return dumpRow(bases, i);
  const base = bases[i % bases.length];
  return { ...base, id: `${String(base.id)}-${i}` };
}

/** The parsed rows items of `shape` are made of. */
export function arrayBases(shape: ArrayShape): Record<string, unknown>[] {
  if (shape === 'nemo') return sampleRows();
  return JSON.parse(fs.readFileSync(path.join(samplesDir(), 'process-labels', 'processbench_gsm8k.json'), 'utf8')) as Record<string, unknown>[];
}

/**
 * Writes an array of at least `bytes` bytes to `file` (reused when a file made for the same size is
 * there, from an earlier run: its item count is kept beside it in `<file>.items`). Returns the
 * number of items and the file's size.
 */
export function generateJsonArray(file: string, bytes: number, shape: ArrayShape): { items: number; size: number } {
  const meta = `${file}.items`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const size = fs.statSync(file).size;
    const items = Number(fs.readFileSync(meta, 'utf8'));
    if (size >= bytes && size <= bytes * 1.01 && items > 0) return { items, size };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bases = arrayBases(shape);
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let size = 0;
  let items = 0;
  try {
    let batch: string[] = ['['];
    let batchBytes = 1;
    size = 1;
    while (size < bytes) {
      const text = `${items ? ',' : ''}\n  ${JSON.stringify(arrayItem(shape, bases, items), null, 2).replace(/\n/g, '\n  ')}`;
      const n = Buffer.byteLength(text);
      batch.push(text);
      batchBytes += n;
      size += n;
      items++;
      if (batchBytes > 8 * 1024 * 1024) {
        fs.writeSync(fd, batch.join(''));
        batch = [];
        batchBytes = 0;
      }
    }
    batch.push('\n]');
    size += 2;
    fs.writeSync(fd, batch.join(''));
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fs.writeFileSync(meta, String(items));
  return { items, size };
}
