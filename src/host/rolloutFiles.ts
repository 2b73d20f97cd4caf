/**
 * How the host reads rollout files: the extension's load workers and its dump indexes, made once by
 * the composition root (host/app.ts) and handed to every feature that reads files.
 */
import type { DumpIndexes } from './dumpIndexes';
import { RolloutLoader } from './loadWorker';

/** The readers of rollout files a feature is given. */
export interface RolloutFiles {
  /** Reads a whole file (in a load worker when it is large). */
  readonly loader: RolloutLoader;
  /** The indexes of large dumps; null: none (files are read whole). */
  readonly dumps: DumpIndexes | null;
}

/** Files read whole on the calling thread, with no dump indexes (unit tests of the views). */
export function inThreadFiles(): RolloutFiles {
  return { loader: new RolloutLoader(null), dumps: null };
}
