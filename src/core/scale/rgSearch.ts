/**
 * In-file search of a (large) rollout file driven by ripgrep (VS Code ships one; the host passes
 * its path): the same queries and hits as the built-in scanner in fileSearch.ts — literals matched as
 * written inside JSON strings (the query JSON-escaped), regular expressions on the raw line text —
 * at ripgrep's speed. ripgrep runs as `rg --no-config -o -b -n -a [-F] [-s|-i] -e QUERY FILE`;
 * each output line is `LINE:BYTE_OFFSET:MATCH`. Hits stream through `onHits`; `maxHits` stops
 * ripgrep early; the AbortSignal kills it. Never imports `vscode`.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { preview, rolloutAt, SearchCancelledError, type SearchHit, type SearchOptions, type SearchResult } from './searchHits';

/** ripgrep could not be used for this query (not startable, or it rejected the pattern): use the built-in scanner. */
export class RipgrepUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RipgrepUnavailableError';
  }
}

/** The decimal number in `b[from, to)` (ASCII digits, as ripgrep prints them); NaN for anything else. */
function digits(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return to > from ? n : NaN;
}

/** Context read either side of a hit for its preview (bytes), and the most read for one hit. */
const PREVIEW_MARGIN = 240;
const PREVIEW_WINDOW = 4096;
/** Hits whose previews fall within this many bytes are read with one read (a batch). */
const PREVIEW_BATCH = 256 * 1024;

/**
 * Reads up to 60 characters of context either side of each of `hits` (the first `limit` ones) from
 * the file. Hits lie in file order, so the previews of nearby hits come from one read of the span
 * they cover (at most PREVIEW_BATCH bytes): one read per hit made the previews cost more than
 * ripgrep's whole search. Each hit sees the same bytes a read of its own would give it (its
 * PREVIEW_WINDOW from PREVIEW_MARGIN before it), so previews do not depend on the batching.
 */
async function addPreviews(fh: fs.promises.FileHandle, hits: SearchHit[], limit: number, already: number): Promise<void> {
  const n = Math.max(0, Math.min(hits.length, limit - already));
  const win = (h: SearchHit): [number, number] => {
    const start = Math.max(0, h.offset - PREVIEW_MARGIN);
    return [start, start + Math.min(PREVIEW_WINDOW, h.offset - start + h.length + PREVIEW_MARGIN)];
  };
  let buf = Buffer.allocUnsafe(PREVIEW_BATCH + PREVIEW_WINDOW);
  for (let i = 0; i < n; ) {
    const [start] = win(hits[i]);
    let end = win(hits[i])[1];
    let j = i;
    while (j + 1 < n) {
      const [s1, e1] = win(hits[j + 1]);
      if (s1 < start || Math.max(end, e1) - start > PREVIEW_BATCH) break;
      end = Math.max(end, e1);
      j++;
    }
    if (buf.length < end - start) buf = Buffer.allocUnsafe(end - start);
    const { bytesRead } = await fh.read(buf, 0, end - start, start);
    for (let k = i; k <= j; k++) {
      const h = hits[k];
      const [s, e] = win(h);
      const view = buf.subarray(s - start, Math.min(bytesRead, e - start));
      const at = h.offset - s;
      h.preview = at <= view.length ? preview(view, at, Math.min(h.length, view.length - at)) : '';
    }
    i = j + 1;
  }
}

/**
 * Searches `file` for `query` with the ripgrep at `options.rgPath`. Same result shape as
 * `searchFile`; `bytes` is the file size when complete, else the offset past the last hit.
 * @throws RipgrepUnavailableError (ripgrep missing or the pattern is not valid for it),
 *   SearchCancelledError, or an Error with ripgrep's message for other ripgrep failures
 */
export async function searchFileRipgrep(file: string, query: string, options: SearchOptions & { rgPath: string }): Promise<SearchResult> {
  const maxHits = options.maxHits ?? 1000;
  const previewLimit = options.previewLimit ?? 1000;
  const size = (await fs.promises.stat(file)).size;
  if (query === '') return { hits: [], bytes: 0, complete: true };
  if (options.signal?.aborted) throw new SearchCancelledError();
  const pattern = options.regex ? query : JSON.stringify(query).slice(1, -1);
  const args = ['--no-config', '--no-filename', '--color', 'never', '-o', '-b', '-n', '-a', options.caseSensitive ? '-s' : '-i'];
  if (!options.regex) args.push('-F');
  args.push('-e', pattern, '--', file);
  const fh = await fs.promises.open(file, 'r');
  const hits: SearchHit[] = [];
  try {
    return await new Promise<SearchResult>((resolve, reject) => {
      const rg = spawn(options.rgPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let rest = Buffer.alloc(0);
      let stderr = '';
      let done = false;
      let stopped = false;
      let chain = Promise.resolve();
      const finish = (f: () => void): void => {
        if (done) return;
        done = true;
        options.signal?.removeEventListener('abort', onAbort);
        f();
      };
      const onAbort = (): void => {
        rg.kill('SIGKILL');
        finish(() => reject(new SearchCancelledError()));
      };
      options.signal?.addEventListener('abort', onAbort);
      rg.on('error', (e) => finish(() => reject(new RipgrepUnavailableError(`ripgrep (${options.rgPath}) did not start: ${e.message}`))));
      rg.stderr.on('data', (d: Buffer) => {
        if (stderr.length < 4000) stderr += d.toString('utf8');
      });
      rg.stdout.on('data', (d: Buffer) => {
        if (stopped) return;
        const data = rest.length ? Buffer.concat([rest, d]) : d;
        const found: SearchHit[] = [];
        let from = 0;
        for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, from)) {
          // LINE:OFFSET:MATCH (the match is raw bytes up to the line break).
          const c1 = data.indexOf(58, from);
          const c2 = c1 >= 0 ? data.indexOf(58, c1 + 1) : -1;
          if (c1 > from && c2 > c1 && c2 < nl) {
            const line = digits(data, from, c1);
            const offset = digits(data, c1 + 1, c2);
            const length = Math.max(1, nl - c2 - 1);
            const hit: SearchHit = { offset, length, line, rollout: rolloutAt(options.entries, offset), preview: '' };
            found.push(hit);
            hits.push(hit);
          }
          from = nl + 1;
          if (hits.length >= maxHits) {
            stopped = true;
            rg.kill('SIGKILL');
            break;
          }
        }
        rest = stopped ? Buffer.alloc(0) : Buffer.from(data.subarray(from));
        if (found.length) {
          const before = hits.length - found.length;
          chain = chain.then(async () => {
            await addPreviews(fh, found, previewLimit, before);
            options.onHits?.(found, found[found.length - 1].offset, size);
          });
        }
      });
      rg.on('close', (code) => {
        void chain.then(
          () => {
            if (stopped) {
              const last = hits[hits.length - 1];
              return finish(() => resolve({ hits, bytes: last.offset + last.length, complete: false }));
            }
            if (code === 0 || code === 1) {
              options.onHits?.([], size, size);
              return finish(() => resolve({ hits, bytes: size, complete: true }));
            }
            const msg = stderr.trim() || `exit code ${code}`;
            if (/regex parse error|error parsing regex|look-around|backreferences/i.test(msg)) return finish(() => reject(new RipgrepUnavailableError(msg)));
            finish(() => reject(new Error(`ripgrep failed on ${file}: ${msg}`)));
          },
          (e) => finish(() => reject(e)),
        );
      });
    });
  } finally {
    await fh.close();
  }
}
