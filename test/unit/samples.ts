/**
 * Paths of the shared real-world samples, and the helpers the tests share (reading samples, temp
 * files, positions, load errors, detection). The repository expects `../shared/samples` beside its
 * root (the layout of developer checkouts and of CI); SAMPLES_DIR overrides it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RolloutLoadError } from '../../src/core/errors';
import type { FileAccess, FormatLoader } from '../../src/core/formats/types';
import { loadFile, makeInput } from '../../src/core/load';
import type { Step } from '../../src/core/model';
import { nodeFiles } from '../../src/core/nodeFiles';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const SAMPLES_DIR = process.env.SAMPLES_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'samples');

/**
 * The census of real coding-agent session logs (Claude Code, Codex CLI, Gemini CLI, …) beside the
 * samples: `../shared/format-census` (CENSUS_DIR overrides it; default: beside SAMPLES_DIR).
 */
export const CENSUS_DIR = process.env.CENSUS_DIR ?? path.resolve(SAMPLES_DIR, '..', 'format-census');

/** Absolute path of a census file, e.g. `censusFile('claude-code/short.jsonl')`. Throws when it is missing. */
export function censusFile(rel: string): string {
  const p = path.join(CENSUS_DIR, rel);
  if (!fs.existsSync(p)) throw new Error(`census file missing: ${p} (set CENSUS_DIR or check ../shared/format-census)`);
  return p;
}

/** Absolute path of a sample, e.g. `sample('atif/…trajectory.json')`. Throws when it is missing. */
export function sample(rel: string): string {
  const p = path.join(SAMPLES_DIR, rel);
  if (!fs.existsSync(p)) throw new Error(`sample missing: ${p} (set SAMPLES_DIR or check ../shared/samples)`);
  return p;
}

/** Parsed JSON of a sample, for tests that read expected values out of the file itself. */
export function sampleJson<T = any>(rel: string): T {
  return JSON.parse(fs.readFileSync(sample(rel), 'utf8')) as T;
}

/** Text of a sample (UTF-8). */
export function sampleText(rel: string): string {
  return fs.readFileSync(sample(rel), 'utf8');
}

/** Rows of a JSONL sample, parsed by the test (blank lines skipped). */
export function sampleJsonl(rel: string): any[] {
  return sampleText(rel)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Which of `loaders` accept a file's content (by id). */
export function acceptedBy(loaders: readonly FormatLoader[], file: string, text: string): string[] {
  const input = makeInput(file, text, nodeFiles);
  return loaders.filter((l) => l.detect(input).accept).map((l) => l.id);
}

/** The RolloutLoadError that loading `file` ends in; fails the test when it loads or fails otherwise. */
export async function loadError(file: string, files: FileAccess = nodeFiles): Promise<RolloutLoadError> {
  try {
    await loadFile(file, files);
  } catch (e) {
    assert.ok(e instanceof RolloutLoadError, `expected RolloutLoadError, got ${(e as Error)?.stack}`);
    return e;
  }
  assert.fail(`${file} loaded`);
}

/** The JSON value a step's range covers, parsed. */
export function rangeValue(text: string, s: Step): unknown {
  assert.ok(s.range, `step ${s.index} has a range`);
  return JSON.parse(text.slice(s.range.start, s.range.end));
}

const made: string[] = [];
// Temp folders made by tests are removed when the test process exits (also after failures).
process.on('exit', () => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** A new temp folder, removed when the test process exits. */
export function tmpDir(prefix = 'ti-test-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Writes `text` to `<new temp folder>/<name>` and returns the file's path. */
export function tmpFile(name: string, text: string): string {
  const f = path.join(tmpDir(), name);
  fs.writeFileSync(f, text);
  return f;
}

/** 1-based line/column of a UTF-16 offset in a text (the test's own count, independent of core/json). */
export function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}
