/**
 * Generates large single-document rollout files (the ones that load whole, not through a dump index)
 * from the shapes of the real samples in ../shared/samples, for bench/hostBlock.bench.ts and the
 * load worker tests. Every generated file loads with core `loadFile` as the format of its sample.
 *
 * - atifLong: a Harbor ATIF trajectory (Terminus 2 sample) with its agent steps repeated to `steps`
 *   steps (step_id renumbered), pretty-printed as Harbor writes it.
 * - sweAgentOneLine: a SWE-agent `.traj` (marshmallow sample) with its trajectory and history
 *   repeated until the file reaches `bytes`, written as one line (minified JSON).
 * - inspectLong: an Inspect AI JSON log (log_read_sample.json) with its sample repeated (ids
 *   `<id>-<n>`) until the file reaches `bytes`, pretty-printed as Inspect writes it.
 *
 * A file already there is reused (they are deterministic); each returns its path and size.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { samplesDir } from './genDump';

const ATIF_SAMPLE = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const SWE_SAMPLE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const INSPECT_SAMPLE = 'inspect/log_read_sample.json';

function readSample(rel: string): any {
  return JSON.parse(fs.readFileSync(path.join(samplesDir(), rel), 'utf8'));
}

function write(file: string, text: string): { file: string; size: number } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
  return { file, size: Buffer.byteLength(text) };
}

function reuse(file: string): { file: string; size: number } | null {
  return fs.existsSync(file) ? { file, size: fs.statSync(file).size } : null;
}

/** A Harbor ATIF trajectory of `steps` steps at `file` (its name should end in `trajectory.json`). */
export function atifLong(file: string, steps: number): { file: string; size: number } {
  const have = reuse(file);
  if (have) return have;
  const d = readSample(ATIF_SAMPLE);
  const [first, ...rest] = d.steps as Record<string, unknown>[];
  const out: Record<string, unknown>[] = [{ ...first, step_id: 1 }];
  for (let i = 1; i < steps; i++) out.push({ ...rest[(i - 1) % rest.length], step_id: i + 1 });
  return write(file, JSON.stringify({ ...d, session_id: `${String(d.session_id)}-x${steps}`, steps: out }, null, 2));
}

/** A SWE-agent `.traj` of at least `bytes` bytes, on one line, at `file`. */
export function sweAgentOneLine(file: string, bytes: number): { file: string; size: number } {
  const have = reuse(file);
  if (have) return have;
  const d = readSample(SWE_SAMPLE);
  const one = Buffer.byteLength(JSON.stringify(d));
  const times = Math.max(1, Math.ceil(bytes / one));
  const rep = <T>(xs: T[]): T[] => Array.from({ length: xs.length * times }, (_, i) => xs[i % xs.length]);
  return write(file, JSON.stringify({ ...d, trajectory: rep(d.trajectory), history: rep(d.history) }));
}

/** An Inspect AI JSON log of at least `bytes` bytes at `file`. */
export function inspectLong(file: string, bytes: number): { file: string; size: number } {
  const have = reuse(file);
  if (have) return have;
  const d = readSample(INSPECT_SAMPLE);
  const sample = d.samples[0];
  const one = Buffer.byteLength(JSON.stringify(sample, null, 2));
  const n = Math.max(1, Math.ceil(bytes / one));
  const samples = Array.from({ length: n }, (_, i) => ({ ...sample, id: `${String(sample.id)}-${i}`, uuid: `${String(sample.uuid)}-${i}` }));
  return write(file, JSON.stringify({ ...d, samples }, null, 2));
}
