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

/** Reads up to 60 characters of context either side of each of `hits` (the first `limit` ones) from the file. */
async function addPreviews(fh: fs.promises.FileHandle, hits: SearchHit[], limit: number, already: number): Promise<void> {
  const buf = Buffer.allocUnsafe(4096);
  for (let i = 0; i < hits.length && already + i < limit; i++) {
    const h = hits[i];
    const start = Math.max(0, h.offset - 240);
    const want = Math.min(buf.length, h.offset - start + h.length + 240);
    const { bytesRead } = await fh.read(buf, 0, want, start);
    h.preview = preview(buf.subarray(0, bytesRead), h.offset - start, Math.min(h.length, bytesRead - (h.offset - start)));
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
            const line = Number(data.toString('latin1', from, c1));
            const offset = Number(data.toString('latin1', c1 + 1, c2));
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
