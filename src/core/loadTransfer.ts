/**
 * What crosses between the thread that asks for a rollout file and the load worker (loadWorkerMain.ts,
 * run by LoadPool in loadPool.ts): the request, the reply, and load errors in a form that survives
 * structured clone. A structured-cloned Error loses its class and its own fields (RolloutLoadError's
 * located `issues`, UnknownFormatError's `declined` formats), so errors travel as plain data and are
 * rebuilt as the same classes on the other side: callers keep using `instanceof`.
 *
 * A LoadedFile itself is plain data (objects, arrays, strings, numbers, booleans, null; no functions,
 * class instances or Maps): it is sent as it is and arrives deep-equal (the worker tests check it
 * against an in-thread `loadFile` of every sample).
 */
import { RolloutLoadError, UnknownFormatError, type Declined, type LocatedIssue } from './errors';
import type { LoadedFile } from './load';

/** Host → worker: read one file. `id` pairs the reply with its request. */
export interface LoadRequest {
  id: number;
  /** Absolute path of the rollout file. */
  file: string;
}

/** A load error as plain data. */
export type SerializedLoadError =
  | { kind: 'RolloutLoadError'; file: string; format: string | null; issues: LocatedIssue[]; stack?: string }
  | { kind: 'UnknownFormatError'; file: string; declined: Declined[]; stack?: string }
  | { kind: 'Error'; name: string; message: string; code?: string; stack?: string };

/** Worker → host: the LoadedFile, or the error `loadFile` threw. */
export type LoadReply = { id: number; ok: true; loaded: LoadedFile } | { id: number; ok: false; error: SerializedLoadError };

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
