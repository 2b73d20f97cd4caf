/**
 * Generates large JSONL rollout dumps for the benchmarks and the scale e2e test, from the shapes of
 * the real NeMo-Gym samples (../shared/samples/openai-responses): each row is a real sample row with
 * its task / rollout indices and instance id changed (GRPO groups of 4, unique ids) and the reward
 * alternated, so every row is a valid `openai-responses` rollout as the loader reads it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The real sample rows the dumps are made of. */
export const DUMP_SAMPLES = [
  'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl',
  'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl',
];

/** Where the shared samples are (../shared/samples beside the repository; SAMPLES_DIR overrides). */
export function samplesDir(): string {
  return process.env.SAMPLES_DIR ?? path.resolve(__dirname, '..', '..', 'shared', 'samples');
}

/** Rollouts per GRPO group in the generated dumps. */
export const GROUP_SIZE = 4;

/** Which sample row row `i` is made from: every rollout of a group from the same one (one prompt per group). */
export function baseOf(i: number, bases: number): number {
  return Math.floor(i / GROUP_SIZE) % bases;
}

/** Row `i` of a generated dump made of `bases` (parsed sample rows). */
export function dumpRow(bases: readonly Record<string, unknown>[], i: number): Record<string, unknown> {
  const base = bases[baseOf(i, bases.length)];
  const task = Math.floor(i / GROUP_SIZE);
  return {
    ...base,
    instance_id: `${String(base.instance_id ?? 'task')}-${task}`,
    _ng_task_index: task,
    _ng_rollout_index: i % GROUP_SIZE,
    reward: i % 3 === 0 ? 1 : 0,
  };
}

/** The parsed sample rows (throws when the samples are missing). */
export function sampleRows(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const rel of DUMP_SAMPLES) {
    const text = fs.readFileSync(path.join(samplesDir(), rel), 'utf8');
    for (const l of text.split('\n')) if (l.trim()) rows.push(JSON.parse(l) as Record<string, unknown>);
  }
  return rows;
}

/**
 * Writes a dump of at least `bytes` bytes to `file` (reused when it exists with a size within 1% of
 * that, from an earlier run). Returns the number of rows and the file's size.
 */
export function generateDump(file: string, bytes: number): { rows: number; size: number } {
  if (fs.existsSync(file)) {
    const size = fs.statSync(file).size;
    if (size >= bytes && size <= bytes * 1.01) {
      const rows = countLines(file);
      return { rows, size };
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bases = sampleRows();
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let size = 0;
  let rows = 0;
  try {
    let batch: string[] = [];
    let batchBytes = 0;
    while (size < bytes) {
      const line = JSON.stringify(dumpRow(bases, rows)) + '\n';
      const n = Buffer.byteLength(line);
      batch.push(line);
      batchBytes += n;
      size += n;
      rows++;
      if (batchBytes > 8 * 1024 * 1024) {
        fs.writeSync(fd, batch.join(''));
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length) fs.writeSync(fd, batch.join(''));
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return { rows, size };
}

function countLines(file: string): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 * 1024 * 1024);
  let n = 0;
  let pos = 0;
  try {
    for (;;) {
      const got = fs.readSync(fd, buf, 0, buf.length, pos);
      if (got === 0) break;
      for (let i = buf.indexOf(10); i >= 0 && i < got; i = buf.indexOf(10, i + 1)) n++;
      pos += got;
    }
  } finally {
    fs.closeSync(fd);
  }
  return n;
}
