/**
 * Entry of a load worker thread (bundled as dist/loadWorker.js; LoadPool in loadPool.ts starts it):
 * answers each LoadRequest with core `loadFile` of that file, the LoadedFile by structured clone or
 * the error as plain data (loadTransfer.ts). One request at a time: the pool sends the next only
 * after the reply.
 */
import { parentPort } from 'node:worker_threads';
import { loadFile } from './load';
import { serializeLoadError, type LoadReply, type LoadRequest } from './loadTransfer';

if (!parentPort) throw new Error('loadWorkerMain.ts runs only in a worker thread (LoadPool starts it)');
const port = parentPort;

async function handle(req: LoadRequest): Promise<void> {
  let reply: LoadReply;
  try {
    reply = { id: req.id, ok: true, loaded: await loadFile(req.file) };
  } catch (e) {
    reply = { id: req.id, ok: false, error: serializeLoadError(e) };
  }
  try {
    port.postMessage(reply);
  } catch (e) {
    // DataCloneError: something in the result structured clone cannot carry (a bug in a loader).
    port.postMessage({ id: req.id, ok: false, error: serializeLoadError(new Error(`The rollouts read from ${req.file} cannot be passed back from the load worker: ${e instanceof Error ? e.message : String(e)}`)) } satisfies LoadReply);
  }
}

port.on('message', (req: LoadRequest) => void handle(req));
