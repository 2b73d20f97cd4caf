/**
 * A JSONL rollout dump read one row at a time, from its first line to its last, for a reader that
 * goes through every rollout once (the CLI's `show` of a big dump): memory follows the row being
 * read, not the file. The format is detected as the dump index detects it (rolloutIndex.ts
 * `detectFormat`: a format of ROW_FORMATS, else NotIndexableError); each row is loaded by the real
 * loader on that line (rowLoad.ts `loadRow`), so its rollout, line numbers and located issues are
 * those of a full load; repeated ids are made unique as the index makes them (`#line<N>`, or `#<n>`
 * for the process-label formats).
 *
 * What a full load does and this does not: a file that is not valid UTF-8 fails per row (a full
 * load fails the file), and the checks a full load runs over all rollouts together (oddities.ts
 * timestamps) are left to the caller. The ids seen so far are kept (a Map entry per distinct id) to
 * make repeated ones unique. This module never imports `vscode`.
 */
import * as fs from 'node:fs';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import type { FormatId, Rollout } from '../model';
import { ROW_FORMATS } from './indexBase';
import { detectFormat } from './rolloutIndex';
import { loadRow } from './rowLoad';

/** One row read: its rollout, or the located issues that left it out (as a full load reports them). */
export type StreamedRow = { rollout: Rollout; issues?: undefined } | { rollout?: undefined; issues: LocatedIssue[] };

/** A dump whose rows are read in order. */
export interface RowStream {
  file: string;
  format: FormatId;
  /** The rows from the first line on; each call starts again from the file's start. */
  rows(): AsyncGenerator<StreamedRow>;
}

/** Whether a row's bytes are only whitespace. */
function blank(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10) return false;
  }
  return true;
}

/**
 * Opens `file` for reading its rows in order (see the module docs).
 * @param options.chunkBytes bytes per read (default 4 MiB; a longer row grows the buffer to hold it)
 * @throws NotIndexableError when the file is not one rollout per JSONL line; the fs error opening it
 */
export async function openRowStream(file: string, options: { chunkBytes?: number } = {}): Promise<RowStream> {
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  const fh = await fs.promises.open(file, 'r');
  let format: FormatId;
  try {
    format = await detectFormat(fh, file, (await fh.stat()).size);
  } finally {
    await fh.close();
  }
  const style = ROW_FORMATS[format] ?? 'line';
  async function* rows(): AsyncGenerator<StreamedRow> {
    const seen = new Map<string, number>();
    const one = async (b: Buffer, offset: number, line: number): Promise<StreamedRow | null> => {
      const len = b.length && b[b.length - 1] === 13 ? b.length - 1 : b.length;
      const r = b.subarray(0, len);
      if (blank(r)) return null;
      let rollout: Rollout;
      try {
        rollout = await loadRow(file, format, { offset, length: len, line }, r);
      } catch (e) {
        if (e instanceof RolloutLoadError) return { issues: e.issues };
        throw e;
      }
      const n = (seen.get(rollout.id) ?? 0) + 1;
      seen.set(rollout.id, n);
      if (n > 1) rollout.id = `${rollout.id}#${style === 'line' ? `line${line}` : n}`;
      return { rollout };
    };
    const h = await fs.promises.open(file, 'r');
    try {
      const size = (await h.stat()).size;
      let buf = Buffer.allocUnsafe(chunkBytes * 2);
      let pos = 0;
      let line = 1;
      let carryLen = 0;
      let carryStart = 0;
      while (pos < size) {
        if (buf.length - carryLen < chunkBytes) {
          const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, carryLen + chunkBytes));
          buf.copy(bigger, 0, 0, carryLen);
          buf = bigger;
        }
        const { bytesRead } = await h.read(buf, carryLen, Math.min(chunkBytes, size - pos), pos);
        if (bytesRead === 0) break;
        const data = buf.subarray(0, carryLen + bytesRead);
        const dataStart = carryStart;
        pos += bytesRead;
        let s = 0;
        // A BOM before the first row is not part of it.
        if (dataStart === 0 && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) s = 3;
        for (let nl = data.indexOf(10, s); nl >= 0; nl = data.indexOf(10, s)) {
          // The row is decoded before it is yielded: the buffer is read into again only after.
          const row = await one(data.subarray(s, nl), dataStart + s, line);
          if (row) yield row;
          line++;
          s = nl + 1;
        }
        carryStart = dataStart + s;
        carryLen = data.length - s;
        if (carryLen > 0 && s > 0) buf.copy(buf, 0, s, data.length);
      }
      if (carryLen > 0) {
        const row = await one(buf.subarray(0, carryLen), carryStart, line);
        if (row) yield row;
      }
    } finally {
      await h.close();
    }
  }
  return { file, format, rows };
}
