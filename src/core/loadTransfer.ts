/**
 * What crosses between the thread that asks for a rollout file and the load worker (loadWorkerMain.ts,
 * run by LoadPool in loadPool.ts): the request, the reply, and load errors in a form that survives
 * structured clone. A structured-cloned Error loses its class and its own fields (RolloutLoadError's
 * located `issues`, UnknownFormatError's `declined` formats), so errors travel as plain data and are
 * rebuilt as the same classes on the other side: callers keep using `instanceof`.
 *
 * A LoadedFile itself is plain data (objects, arrays, strings, numbers, booleans, null; no functions,
 * class instances or Maps), so it survives `v8.serialize` / structured clone whole: it is sent in
 * pieces (PackedLoadedFile) and arrives deep-equal (the worker tests check it against an in-thread
 * `loadFile` of every sample).
 */
import * as v8 from 'node:v8';
import { RolloutLoadError, UnknownFormatError, type Declined, type LocatedIssue } from './errors';
import type { LoadedFile, LoadOptions } from './load';
import type { Rollout, Step } from './model';

/** Host → worker: read one file. `id` pairs the reply with its request. */
export interface LoadRequest {
  id: number;
  /** Absolute path of the rollout file. */
  file: string;
  /** How to read it (the user's limits). */
  options?: LoadOptions;
}

/** A load error as plain data. */
export type SerializedLoadError =
  | { kind: 'RolloutLoadError'; file: string; format: string | null; issues: LocatedIssue[]; stack?: string }
  | { kind: 'UnknownFormatError'; file: string; declined: Declined[]; stack?: string }
  | { kind: 'Error'; name: string; message: string; code?: string; stack?: string };

/**
 * A LoadedFile packed for the trip to the host in pieces: each rollout without its steps (a
 * "shell"), then each of its steps, every piece serialized on its own (`v8.serialize`) into one
 * buffer. The host deserializes them piece by piece and yields to its event loop in between
 * (unpackLoadedFile), so a file of any size never holds the host's thread for longer than one
 * piece takes; a single structured clone of the whole LoadedFile held it for 0.1–0.5 s on 10–50 MB
 * files (bench/results/hostBlock.md).
 */
export interface PackedLoadedFile {
  /** The LoadedFile's fields but its rollouts. */
  head: Omit<LoadedFile, 'rollouts'>;
  /** Every piece's serialized bytes, back to back. */
  data: Uint8Array;
  /** End offset of each piece in `data`. */
  ends: Float64Array;
  /** Per piece: 0 = the shell of the next rollout (its `steps` empty), 1 = the next step of the current rollout. */
  kinds: Uint8Array;
}

/** Worker → host: the LoadedFile (packed), or the error `loadFile` threw. */
export type LoadReply = { id: number; ok: true; packed: PackedLoadedFile } | { id: number; ok: false; error: SerializedLoadError };

/** Packs a LoadedFile (see PackedLoadedFile). Runs in the worker. */
export function packLoadedFile(loaded: LoadedFile): PackedLoadedFile {
  const { rollouts, ...head } = loaded;
  const parts: Buffer[] = [];
  const kinds: number[] = [];
  for (const r of rollouts) {
    parts.push(v8.serialize({ ...r, steps: [] }));
    kinds.push(0);
    for (const s of r.steps) {
      parts.push(v8.serialize(s));
      kinds.push(1);
    }
  }
  const ends = new Float64Array(parts.length);
  let end = 0;
  parts.forEach((b, i) => (ends[i] = end += b.length));
  // Buffer.concat of a large total allocates a buffer of its own: `data.buffer` can be transferred.
  const data = Buffer.concat(parts, end);
  return { head, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), ends, kinds: Uint8Array.from(kinds) };
}

/** The ArrayBuffers of a packed file that can be moved (not copied) to the host: the ones it owns whole. */
export function transferables(p: PackedLoadedFile): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const a of [p.data, p.ends, p.kinds]) {
    if (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.buffer instanceof ArrayBuffer) out.push(a.buffer);
  }
  return out;
}

/**
 * Rebuilds a packed LoadedFile, deserializing piece by piece and yielding to the event loop
 * (setImmediate) whenever `sliceMs` have passed since the last yield. Stops with `cancelled()`'s
 * error when it returns one between pieces.
 */
export async function unpackLoadedFile(p: PackedLoadedFile, sliceMs = 8, cancelled: () => Error | null = () => null): Promise<LoadedFile> {
  const rollouts: Rollout[] = [];
  let current: Rollout | null = null;
  let start = 0;
  let slice = performance.now();
  for (let i = 0; i < p.kinds.length; i++) {
    const v = v8.deserialize(p.data.subarray(start, p.ends[i]));
    start = p.ends[i];
    if (p.kinds[i] === 0) rollouts.push((current = v as Rollout));
    else if (current) current.steps.push(v as Step);
    else throw new Error('a packed LoadedFile has a step before its rollout');
    if (performance.now() - slice >= sliceMs) {
      await new Promise<void>((r) => setImmediate(r));
      const e = cancelled();
      if (e) throw e;
      slice = performance.now();
    }
  }
  return { ...p.head, rollouts } as LoadedFile;
}

/** Turns whatever `loadFile` threw into plain data (see reviveLoadError). */
export function serializeLoadError(e: unknown): SerializedLoadError {
  if (e instanceof RolloutLoadError) return { kind: 'RolloutLoadError', file: e.file, format: e.format, issues: e.issues, stack: e.stack };
  if (e instanceof UnknownFormatError) return { kind: 'UnknownFormatError', file: e.file, declined: e.declined, stack: e.stack };
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return { kind: 'Error', name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}), stack: e.stack };
  }
  return { kind: 'Error', name: 'Error', message: String(e) };
}

/**
 * Rebuilds an error sent by serializeLoadError: a RolloutLoadError or UnknownFormatError with the
 * same fields and message, or an Error with the same name, message and `code`. The stack is the
 * worker's (where it was thrown).
 */
export function reviveLoadError(s: SerializedLoadError): Error {
  let e: Error;
  if (s.kind === 'RolloutLoadError') e = new RolloutLoadError(s.file, s.format, s.issues);
  else if (s.kind === 'UnknownFormatError') e = new UnknownFormatError(s.file, s.declined);
  else {
    e = new Error(s.message);
    e.name = s.name;
    if (s.code !== undefined) (e as NodeJS.ErrnoException).code = s.code;
  }
  if (s.stack) e.stack = s.stack;
  return e;
}
