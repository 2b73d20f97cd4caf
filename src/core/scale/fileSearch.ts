/**
 * Streaming search inside one (large) rollout file: the file is read in chunks (never whole), a
 * literal is found with `Buffer.indexOf` on the raw bytes, a regular expression runs over each
 * chunk's complete lines. Each hit has its byte offset, 1-based line, the rollout it falls in (with
 * the file's index) and a short preview. Cancellable; at most `maxHits` hits.
 *
 * Literal queries are matched as they are written inside JSON strings (the query JSON-escaped:
 * `grep "x"` finds `grep \"x\"` in the file), so a command or output text is found as the user sees
 * it; a regular expression runs on the raw line text (JSON escapes included). A match never spans
 * lines (JSONL rows end at line breaks). An ASCII pattern (and a case-insensitive ASCII literal) runs
 * on the bytes read as Latin-1 (byteRegexMatcher); others on the decoded UTF-8 text. This module
 * never imports `vscode`.
 */
import * as fs from 'node:fs';
import { RipgrepUnavailableError, searchFileRipgrep } from './rgSearch';
import { preview, rolloutAt, SearchCancelledError, type SearchHit, type SearchOptions, type SearchResult } from './searchHits';

export { preview, rolloutAt, SearchCancelledError, type SearchHit, type SearchOptions, type SearchResult } from './searchHits';

/** Builds the per-chunk matcher: positions and lengths (bytes) of the matches in `data` from `from`. */
function matcher(query: string, o: SearchOptions): (data: Buffer, from: number, end: number) => { at: number; len: number } | null {
  if (!o.regex) {
    const escaped = JSON.stringify(query).slice(1, -1);
    if (o.caseSensitive || escaped.toLowerCase() === escaped.toUpperCase()) {
      const needle = Buffer.from(escaped, 'utf8');
      return (data, from, end) => {
        const at = data.indexOf(needle, from);
        return at >= 0 && at + needle.length <= end ? { at, len: needle.length } : null;
      };
    }
    // Case-insensitive literal: a regular expression of the escaped text.
    const re = new RegExp(escaped.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
    return isAscii(escaped) ? byteRegexMatcher(re) : regexMatcher(re);
  }
  const re = new RegExp(query, o.caseSensitive ? 'g' : 'gi');
  return isAscii(query) ? byteRegexMatcher(re) : regexMatcher(re);
}

function isAscii(s: string): boolean {
  return !/[^\x00-\x7f]/.test(s);
}

/**
 * An ASCII pattern run over the bytes as Latin-1 text (one character per byte: decoding is a copy,
 * offsets are byte offsets). Multi-byte characters in the file are several characters to it, so
 * `.` matches one byte of them; ASCII text matches as usual.
 */
function byteRegexMatcher(re: RegExp): (data: Buffer, from: number, end: number) => { at: number; len: number } | null {
  let c: { data: Buffer; start: number; end: number; text: string } | null = null;
  return (data, from, end) => {
    if (!c || c.data !== data || c.start > from || c.end !== end) c = { data, start: from, end, text: data.toString('latin1', from, end) };
    re.lastIndex = from - c.start;
    const m = re.exec(c.text);
    if (!m) return null;
    return { at: c.start + m.index, len: Math.max(1, m[0].length) };
  };
}

/** A regex run over the text of complete lines; offsets converted back to bytes (latin1 decoding keeps them equal for ASCII-only lines). */
function regexMatcher(re: RegExp): (data: Buffer, from: number, end: number) => { at: number; len: number } | null {
  // The chunk's text, decoded once; `byte`/`char` is the last position known in both units (matches go forward).
  let c: { data: Buffer; start: number; end: number; text: string; ascii: boolean; byte: number; char: number } | null = null;
  return (data, from, end) => {
    if (!c || c.data !== data || c.start > from || c.end !== end) {
      const text = data.toString('utf8', from, end);
      c = { data, start: from, end, text, ascii: Buffer.byteLength(text) === text.length, byte: from, char: 0 };
    }
    const cc = c;
    if (!cc.ascii && from !== cc.byte) {
      cc.char += data.toString('utf8', cc.byte, from).length;
      cc.byte = from;
    }
    re.lastIndex = cc.ascii ? from - cc.start : cc.char;
    const m = re.exec(cc.text);
    if (!m) return null;
    if (cc.ascii) return { at: cc.start + m.index, len: Math.max(1, m[0].length) };
    const at = cc.byte + Buffer.byteLength(cc.text.slice(cc.char, m.index));
    const len = Math.max(1, Buffer.byteLength(m[0]));
    cc.byte = at + len;
    cc.char = m.index + Math.max(1, m[0].length);
    return { at, len };
  };
}

/**
 * Searches `file` for `query`. See the module docs.
 * @throws SyntaxError (an invalid regular expression), SearchCancelledError, or the fs error reading the file
 */
export async function searchFile(file: string, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  if (query === '') return { hits: [], bytes: 0, complete: true };
  if (options.rgPath) {
    try {
      return await searchFileRipgrep(file, query, { ...options, rgPath: options.rgPath });
    } catch (e) {
      if (!(e instanceof RipgrepUnavailableError)) throw e;
      // ripgrep could not run, or rejected a JavaScript-only regex: the built-in scanner below.
    }
  }
  return searchFileScan(file, query, options);
}

/** The built-in scanner (chunked reads, Buffer.indexOf / RegExp): see the module docs. */
export async function searchFileScan(file: string, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  if (query === '') return { hits: [], bytes: 0, complete: true };
  const maxHits = options.maxHits ?? 1000;
  const previewLimit = options.previewLimit ?? 1000;
  const chunk = options.chunkBytes ?? 4 * 1024 * 1024;
  const match = matcher(query, options);
  const hits: SearchHit[] = [];
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    let buf = Buffer.allocUnsafe(chunk * 2);
    let carryLen = 0;
    let carryStart = 0;
    let pos = 0;
    let line = 1;
    while (pos < size) {
      if (options.signal?.aborted) throw new SearchCancelledError();
      if (buf.length - carryLen < chunk) {
        const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, carryLen + chunk));
        buf.copy(bigger, 0, 0, carryLen);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, carryLen, Math.min(chunk, size - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = buf.subarray(0, carryLen + bytesRead);
      const base = carryStart;
      // Search whole lines only (the rest waits for the next chunk), all of it at the end of the file.
      const lastNl = pos >= size ? data.length : data.lastIndexOf(10) + 1;
      const found: SearchHit[] = [];
      let counted = 0;
      for (let from = 0; from < lastNl; ) {
        const m = match(data, from, lastNl);
        if (!m) break;
        for (let nl = data.indexOf(10, counted); nl >= 0 && nl < m.at; nl = data.indexOf(10, nl + 1)) {
          line++;
          counted = nl + 1;
        }
        const hit: SearchHit = { offset: base + m.at, length: m.len, line, rollout: rolloutAt(options.entries, base + m.at), preview: hits.length < previewLimit ? preview(data, m.at, m.len) : '' };
        found.push(hit);
        hits.push(hit);
        if (hits.length >= maxHits) {
          options.onHits?.(found, pos, size);
          return { hits, bytes: base + m.at + m.len, complete: false };
        }
        from = m.at + m.len;
      }
      for (let nl = data.indexOf(10, counted); nl >= 0 && nl < lastNl; nl = data.indexOf(10, nl + 1)) line++;
      carryLen = data.length - lastNl;
      carryStart = base + lastNl;
      if (carryLen > 0 && lastNl > 0) buf.copy(buf, 0, lastNl, data.length);
      options.onHits?.(found, pos, size);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { hits, bytes: size, complete: true };
  } finally {
    await fh.close();
  }
}
