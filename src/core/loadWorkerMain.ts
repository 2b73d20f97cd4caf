/**
 * Entry of a load worker thread (bundled as dist/loadWorker.js; LoadPool in loadPool.ts starts it):
 * answers each LoadRequest with core `loadFile` of that file, the LoadedFile packed in pieces (its
 * buffer moved, not copied) or the error as plain data (loadTransfer.ts). One request at a time: the pool sends the next only
 * after the reply.
 */
import { parentPort } from 'node:worker_threads';
import { loadFile, type LoadedFile } from './load';
import { packLoadedFile, serializeLoadError, transferables, type LoadReply, type LoadRequest } from './loadTransfer';

if (!parentPort) throw new Error('loadWorkerMain.ts runs only in a worker thread (LoadPool starts it)');
const port = parentPort;

async function handle(req: LoadRequest): Promise<void> {
  let loaded: LoadedFile;
  try {
    loaded = await loadFile(req.file, undefined, req.options);
  } catch (e) {
    port.postMessage({ id: req.id, ok: false, error: serializeLoadError(e) } satisfies LoadReply);
    return;
  }
  try {
    const packed = packLoadedFile(loaded);
    port.postMessage({ id: req.id, ok: true, packed } satisfies LoadReply, transferables(packed));
  } catch (e) {
    // DataCloneError: something in the result that structured clone cannot carry (a bug in a loader).
    const why = new Error(`The rollouts read from ${req.file} cannot be passed back from the load worker: ${e instanceof Error ? e.message : String(e)}`);
    port.postMessage({ id: req.id, ok: false, error: serializeLoadError(why) } satisfies LoadReply);
  }
}

port.on('message', (req: LoadRequest) => void handle(req));
