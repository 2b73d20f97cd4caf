// Cases for oddities.test.ts (run inside the watchdog's worker): rollouts that load but hold values
// that are not what they claim — generated from a real ATIF sample, and casts written here.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadFile } from '../../src/core/load';
import { parseAsciicast } from '../../src/core/formats/asciicast';
import { castView } from '../../src/host/castView';
import type { LocatedIssue } from '../../src/core/errors';
import { sample } from '../unit/samples';

const ATIF = 'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json';

export interface Loaded {
  steps: number;
  /** Steps of the original file (ATIF case). */
  originalSteps?: number;
  messages: string[];
  issues: LocatedIssue[];
  note?: string | null;
  playerDuration?: number;
  /** Every step's castTime and durationSec (cast cases), as JSON would carry them. */
  times?: unknown[];
}

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-hostile-odd-'));
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

/**
 * The real ATIF sample with its step ids changed by `ids` ('reverse' | 'duplicate' | 'negative')
 * and, when `timestamp` is given, every step's timestamp replaced by it.
 */
export async function atifOdd(ids: 'reverse' | 'duplicate' | 'negative' | 'none', timestamp?: string): Promise<Loaded> {
  const doc = JSON.parse(fs.readFileSync(sample(ATIF), 'utf8'));
  const n = doc.steps.length;
  doc.steps.forEach((s: { step_id: number; timestamp?: string }, i: number) => {
    if (ids === 'reverse') s.step_id = n - i;
    if (ids === 'duplicate') s.step_id = 1;
    if (ids === 'negative') s.step_id = -1 - i;
    if (timestamp !== undefined) s.timestamp = timestamp;
  });
  const f = tmpFile('trajectory.json', JSON.stringify(doc, null, 2));
  const loaded = await loadFile(f);
  fs.rmSync(path.dirname(f), { recursive: true, force: true });
  const r = loaded.rollouts[0];
  return { steps: r.steps.length, originalSteps: n, messages: r.steps.map((s) => s.message), issues: loaded.issues ?? [] };
}

/** A v2 cast of `n` output events with odd parts: `kind` 'back' (times go back), 'huge' (1e308), 'code' (unknown code), 'size' (10000×10000). */
export async function castOdd(kind: 'back' | 'huge' | 'code' | 'size', n = 1000): Promise<Loaded> {
  const size = kind === 'size' ? 10000 : 80;
  const lines = [JSON.stringify({ version: 2, width: size, height: size })];
  for (let i = 0; i < n; i++) {
    let t = i * 0.1;
    if (kind === 'back' && i % 2 === 1) t = 0.05;
    if (kind === 'huge' && i === n / 2) t = 1e308;
    lines.push(JSON.stringify([t, kind === 'code' && i % 3 === 0 ? 'z' : 'o', `good output ${i}\r\n`]));
    if (kind === 'huge' && i % 100 === 0) lines.push(JSON.stringify([t, 'm', `marker ${i}`]));
  }
  const text = lines.join('\n') + '\n';
  const f = tmpFile('odd.cast', text);
  const loaded = await loadFile(f);
  fs.rmSync(path.dirname(f), { recursive: true, force: true });
  const { cast, note } = castView(parseAsciicast(text, { lenient: true }));
  const r = loaded.rollouts[0];
  const times = r.steps.flatMap((s) => [s.castTime ?? null, s.durationSec]);
  return { steps: r.steps.length, messages: r.steps.map((s) => s.observations.map((o) => o.output).join('')), issues: loaded.issues ?? [], note, playerDuration: cast.duration, times };
}
