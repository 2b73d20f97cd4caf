/**
 * On-disk cache of validated step scores, so reopening a rollout costs nothing.
 *
 * Key = scorer name + version + model + score range + sha256 of the rollout's canonical
 * ScoreRollout JSON (./input.ts `contentHash`: task and steps, not the id). One JSON file per key
 * under `<dir>/<first 2 hex>/<sha256 of the key>.json`, written to a temporary name then renamed
 * (a crash never leaves half a file). A file that does not parse or validate is a miss, never an
 * error. Only scores that passed the client's validation reach `put`; the manager never stores the
 * scores of a failed, crashed or cancelled request. Never imports `vscode`.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { StepScore, type InitializeResult } from './protocol';

/** The part of a scorer's identity the cache key uses. */
export interface ScorerIdentity {
  name: string;
  version: string;
  model: string | null;
  scoreRange: [number, number];
  /**
   * The `initialize` options the scorer was started with, as canonical JSON (keys sorted): options
   * such as a separator, a system prompt or a positive-class index change the scores. Absent = none.
   */
  options?: string;
}

/** Canonical JSON of `initialize` options (object keys sorted at every level); '' for none / empty. */
export function canonicalOptions(options: unknown): string {
  if (options === undefined || options === null) return '';
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
  const s = JSON.stringify(sort(options));
  return s === '{}' ? '' : s;
}

/** The identity of a scorer from its `initialize` result and the options it was started with. */
export function identityOf(info: InitializeResult, options?: unknown): ScorerIdentity {
  const o = canonicalOptions(options);
  return { name: info.scorer.name, version: info.scorer.version, model: info.model, scoreRange: info.scoreRange, ...(o ? { options: o } : {}) };
}

const Entry = z.object({
  v: z.literal(1),
  key: z.string(),
  steps: z.array(StepScore),
});

/** The cache key string of a rollout's content under a scorer. */
export function cacheKey(id: ScorerIdentity, contentHash: string): string {
  // Without options the key is what it was before options were part of it (existing caches stay valid).
  return JSON.stringify(id.options ? [id.name, id.version, id.model, id.scoreRange, id.options, contentHash] : [id.name, id.version, id.model, id.scoreRange, contentHash]);
}

/** A score cache in one directory (created on first write). */
export class ScoreCache {
  /** Same process, same key: served without reading the file again. Bounded. */
  private readonly memory = new Map<string, StepScore[]>();
  private static readonly MEMORY_ENTRIES = 2000;

  constructor(readonly dir: string) {}

  private fileOf(key: string): string {
    const h = createHash('sha256').update(key).digest('hex');
    return path.join(this.dir, h.slice(0, 2), `${h}.json`);
  }

  /** The cached step scores for a rollout's content, or null. */
  async get(id: ScorerIdentity, contentHash: string): Promise<StepScore[] | null> {
    const key = cacheKey(id, contentHash);
    const m = this.memory.get(key);
    if (m) return m;
    let text: string;
    try {
      text = await fs.promises.readFile(this.fileOf(key), 'utf8');
    } catch {
      return null;
    }
    try {
      const e = Entry.safeParse(JSON.parse(text));
      if (!e.success || e.data.key !== key) return null;
      this.remember(key, e.data.steps);
      return e.data.steps;
    } catch {
      return null;
    }
  }

  /** Stores validated step scores; a write error is reported to `onError`, never thrown. */
  async put(id: ScorerIdentity, contentHash: string, steps: StepScore[], onError?: (e: Error) => void): Promise<void> {
    const key = cacheKey(id, contentHash);
    this.remember(key, steps);
    const file = this.fileOf(key);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      await fs.promises.writeFile(tmp, JSON.stringify({ v: 1, key, steps }));
      await fs.promises.rename(tmp, file);
    } catch (e) {
      await fs.promises.rm(tmp, { force: true }).catch(() => {});
      onError?.(e as Error);
    }
  }

  private remember(key: string, steps: StepScore[]): void {
    if (this.memory.size >= ScoreCache.MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
    this.memory.set(key, steps);
  }

  /** Deletes every cached score (the Clear Score Cache command). */
  async clear(): Promise<void> {
    this.memory.clear();
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}
