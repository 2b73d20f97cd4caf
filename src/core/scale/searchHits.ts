/**
 * The shapes of an in-file search (options, hits, result), its cancellation error, and the two
 * helpers both search engines use: which rollout a byte offset falls in, and a hit's preview.
 * Shared by scale/fileSearch.ts (the chunked scan) and scale/rgSearch.ts (ripgrep), so neither
 * imports the other's module for them.
 */
import type { IndexedRollout } from './rolloutIndex';
export interface SearchOptions {
  /** The query is a JavaScript regular expression (else a literal). */
  regex?: boolean;
  /** Match case (default false). */
  caseSensitive?: boolean;
  /** Stop after this many hits (default 1000). */
  maxHits?: number;
  signal?: AbortSignal;
  /** Bytes per read (default 4 MiB). */
  chunkBytes?: number;
  /** Hits past this many get no preview ('') (default 1000: what a list shows; previews dominate the cost of many hits). */
  previewLimit?: number;
  /** The file's index entries (sorted by offset): hits then carry the rollout they fall in. */
  entries?: readonly IndexedRollout[];
  /**
   * A ripgrep executable (VS Code ships one): when given, the file is searched by ripgrep (rgSearch.ts),
   * falling back to the built-in scanner when ripgrep cannot run or rejects the regular expression.
   */
  rgPath?: string | null;
  /** After each chunk: the hits it found and the bytes read so far. */
  onHits?: (hits: SearchHit[], bytesRead: number, size: number) => void;
}

export interface SearchHit {
  /** Byte offset of the match in the file. */
  offset: number;
  /** Length of the match in bytes. */
  length: number;
  /** 1-based line. */
  line: number;
  /** Index (in `entries`) of the rollout the match falls in, or null (no index given, or between rows). */
  rollout: number | null;
  /** Up to 60 characters either side of the match, on one line ('' past `previewLimit` hits). */
  preview: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Bytes searched (the whole file unless stopped at maxHits or cancelled). */
  bytes: number;
  /** False when stopped at maxHits. */
  complete: boolean;
}

/** The search was cancelled through its AbortSignal. */
export class SearchCancelledError extends Error {
  constructor() {
    super('search cancelled');
    this.name = 'SearchCancelledError';
  }
}

/** Index of the entry holding byte `offset` (binary search), or null. */
export function rolloutAt(entries: readonly IndexedRollout[] | undefined, offset: number): number | null {
  if (!entries?.length) return null;
  let lo = 0;
  let hi = entries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entries[mid].offset <= offset) lo = mid;
    else hi = mid - 1;
  }
  const e = entries[lo];
  return offset >= e.offset && offset < e.offset + e.length ? lo : null;
}

/** Up to 60 characters either side of the match at byte `at` (length `len`) in `data`, on one line. */
export function preview(data: Buffer, at: number, len: number): string {
  let s = Math.max(0, at - 60);
  let e = Math.min(data.length, at + len + 60);
  const nlBefore = data.lastIndexOf(10, at);
  if (nlBefore >= s) s = nlBefore + 1;
  const nlAfter = data.indexOf(10, at + len);
  if (nlAfter >= 0 && nlAfter < e) e = nlAfter;
  // Whole UTF-8 characters only.
  while (s < at && (data[s] & 0xc0) === 0x80) s++;
  while (e < data.length && e > at + len && (data[e] & 0xc0) === 0x80) e--;
  return data.toString('utf8', s, e).replace(/\s+/g, ' ');
}
