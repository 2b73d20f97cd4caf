/**
 * Bounded line readers over a file (Node fs, no vscode): the head of a session (its first lines,
 * at most a byte budget) and a streaming pass over every line from an offset. Lines are split at
 * `\n` bytes (never inside a UTF-8 sequence), a trailing `\r` is dropped, and each line is decoded
 * on its own, so memory stays at one chunk plus the longest line.
 */
import { promises as fs } from 'node:fs';

/** Called per line with the line's text and its byte range [start, end) (end excludes the `\n`). Return false to stop. */
export type LineSink = (line: string, start: number, end: number) => boolean | void;

/** What a head read saw. */
export interface HeadRead {
  /** Bytes read from the start of the file. */
  bytes: number;
  /** The start of a line that did not end within the budget (decoded, possibly cut inside a character at its end), else null. */
  partial: string | null;
  /** True when the whole file was read. */
  eof: boolean;
}

function decodeLine(parts: Buffer[], total: number): string {
  const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  return buf.toString('utf8', 0, end);
}

/**
 * Reads the first lines of `file` until `sink` returns false, the file ends, or `maxBytes` are read.
 * A last line without a newline at the end of the file is passed to `sink` too.
 * @throws the fs error when the file cannot be opened or read
 */
export async function readHead(file: string, sink: LineSink, maxBytes = 1024 * 1024, chunkBytes = 64 * 1024): Promise<HeadRead> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    let pos = 0;
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let lineStart = 0;
    while (pos < maxBytes) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(chunkBytes, maxBytes - pos), pos);
      if (bytesRead === 0) {
        if (pendingLen > 0) sink(decodeLine(pending, pendingLen), lineStart, pos);
        return { bytes: pos, partial: null, eof: true };
      }
      let from = 0;
      for (;;) {
        const nl = buf.indexOf(0x0a, from);
        if (nl < 0 || nl >= bytesRead) break;
        const piece = buf.subarray(from, nl);
        const text = pendingLen ? decodeLine([...pending, piece], pendingLen + piece.length) : decodeLine([piece], piece.length);
        pending = [];
        pendingLen = 0;
        const end = pos + nl;
        if (sink(text, lineStart, end) === false) return { bytes: end + 1, partial: null, eof: false };
        lineStart = end + 1;
        from = nl + 1;
      }
      if (from < bytesRead) {
        pending.push(Buffer.from(buf.subarray(from, bytesRead)));
        pendingLen += bytesRead - from;
      }
      pos += bytesRead;
    }
    return { bytes: pos, partial: pendingLen ? Buffer.concat(pending, pendingLen).toString('utf8') : null, eof: false };
  } finally {
    await fh.close();
  }
}

/** What a full pass saw. */
export interface ScanRead {
  /** Offset just after the last line `sink` took (its `\n`, or the end of a last line it accepted without one). */
  end: number;
  /** Lines longer than `maxLineBytes`, skipped unread. */
  skippedLong: number;
}

/**
 * Passes every line of `file` from byte `start` to `sink`, reading `chunkBytes` at a time (each read
 * yields to the event loop). A last line without a newline is offered with `final = true`; `sink`
 * returns false for it when it is incomplete (not JSON yet), and `end` then stays before it, so a
 * later pass resumes there. Lines longer than `maxLineBytes` are skipped (counted in `skippedLong`).
 * @throws the fs error when the file cannot be read
 */
export async function scanLines(
  file: string,
  start: number,
  sink: (line: string, final: boolean) => boolean | void,
  o: { chunkBytes?: number; maxLineBytes?: number; signal?: { aborted: boolean } } = {},
): Promise<ScanRead> {
  const chunkBytes = o.chunkBytes ?? 1024 * 1024;
  const maxLine = o.maxLineBytes ?? 64 * 1024 * 1024;
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    let pos = start;
    let end = start;
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let tooLong = false;
    let skippedLong = 0;
    for (;;) {
      if (o.signal?.aborted) return { end, skippedLong };
      const { bytesRead } = await fh.read(buf, 0, chunkBytes, pos);
      if (bytesRead === 0) {
        if (pendingLen > 0 && !tooLong && sink(decodeLine(pending, pendingLen), true) !== false) end = pos;
        return { end, skippedLong };
      }
      let from = 0;
      for (;;) {
        const nl = buf.indexOf(0x0a, from);
        if (nl < 0 || nl >= bytesRead) break;
        const piece = buf.subarray(from, nl);
        if (tooLong || pendingLen + piece.length > maxLine) {
          skippedLong++;
        } else {
          sink(pendingLen ? decodeLine([...pending, piece], pendingLen + piece.length) : decodeLine([piece], piece.length), false);
        }
        pending = [];
        pendingLen = 0;
        tooLong = false;
        end = pos + nl + 1;
        from = nl + 1;
      }
      if (from < bytesRead && !tooLong) {
        if (pendingLen + (bytesRead - from) > maxLine) {
          tooLong = true;
          pending = [];
          pendingLen = 0;
        } else {
          pending.push(Buffer.from(buf.subarray(from, bytesRead)));
          pendingLen += bytesRead - from;
        }
      }
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
}
