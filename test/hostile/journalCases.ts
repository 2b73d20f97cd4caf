// Cases for journal.test.ts (run inside the watchdog's worker): label journals holding entries with
// hostile fields, written by someone else (a pulled branch) before or while this store writes.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadFile } from '../../src/core/load';
import { entryLine, openLabelStore } from '../../src/core/labels/journal';
import type { LabelEntry } from '../../src/core/labels/api';
import { sample } from '../unit/samples';

const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

/** A raw journal line: a valid entry for `stepIndex` of `rolloutId` by `annotator`, with `time` replaced by `time`. */
function line(rolloutId: string, stepIndex: number, annotator: string, value: 1 | 0 | -1, time: unknown): string {
  const e: LabelEntry = { v: 1, id: randomUUID(), batch: randomUUID(), rolloutId, stepIndex, stepHash: null, value, firstError: false, note: null, annotator, time: '2026-01-01T00:00:00.000Z', origin: 'manual' };
  return entryLine(e).replace('"time":"2026-01-01T00:00:00.000Z"', `"time":${JSON.stringify(time)}`);
}

export interface JournalOutcome {
  /** Step → value of alice's labels on the first rollout, after the writes, read back by a fresh store. */
  values: Record<string, number | null>;
  warnings: string[];
  /** Error messages of writes that threw. */
  thrown: string[];
}

/**
 * A journal holding, for rollout 0 step 2, one entry by alice with the hostile `time` (value +1) — first
 * in the file before alice opens it (`when: 'before'`), or appended by another writer between her
 * writes (`'during'`). Alice then labels steps 2 (−1), 3 (0) and 4 (+1); a fresh store reads it back.
 */
export async function hostileTime(time: unknown, when: 'before' | 'during'): Promise<JournalOutcome> {
  return hostileEntry({ time }, when);
}

/**
 * The same with any fields of the hostile entry replaced by `patch` (its time a valid one an hour
 * ago unless `patch` sets one); `rolloutId: '$r0'` stands for the first rollout's id.
 */
export async function hostileEntry(patch: Record<string, unknown>, when: 'before' | 'during'): Promise<JournalOutcome> {
  const rollouts = (await loadFile(sample(APB))).rollouts;
  const r0 = rollouts[0];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-hostile-journal-'));
  const j = path.join(dir, '.trajectory-labels', 'apb.jsonl.labels.jsonl');
  fs.mkdirSync(path.dirname(j), { recursive: true });
  const base = JSON.parse(line(r0.id, 2, 'alice', 1, new Date(Date.now() - 3600_000).toISOString())) as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) base[k] = v === '$r0' ? r0.id : v;
  const hostile = JSON.stringify(base) + '\n';
  if (when === 'before') fs.writeFileSync(j, hostile);
  const thrown: string[] = [];
  const s = await openLabelStore(j, { annotator: 'alice', rollouts });
  const write = async (stepIndex: number, value: 1 | 0 | -1): Promise<void> => {
    try {
      await s.apply([{ rolloutId: r0.id, stepIndex, value }]);
    } catch (e) {
      thrown.push((e as Error).message);
    }
  };
  await write(3, 0);
  if (when === 'during') fs.appendFileSync(j, hostile);
  await write(2, -1);
  await write(4, 1);
  const again = await openLabelStore(j, { annotator: 'alice', rollouts });
  const values: Record<string, number | null> = {};
  for (const l of again.current()) if (l.annotator === 'alice' && l.rolloutId === r0.id) values[String(l.stepIndex)] = l.value;
  fs.rmSync(dir, { recursive: true, force: true });
  return { values, warnings: again.warnings, thrown };
}
