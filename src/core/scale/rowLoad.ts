/**
 * Reads one row of a JSONL rollout dump with the real loader, without reading the rest of the
 * file: the row's bytes (from the index) become a one-line LoadInput placed at its line and offset,
 * so line numbers, fallback ids (`<path>:<line>`) and issues are those of a full load.
 *
 * Ranges of steps are offsets into the file as a full load gives them when every byte before the
 * row is ASCII; with multi-byte characters before the row they are byte offsets of the row start
 * plus UTF-16 offsets inside it (Show in Source then lands on the right line, maybe the wrong column).
 * This module never imports `vscode`.
 */
import * as fs from 'node:fs';
import { RolloutLoadError } from '../errors';
import { JsonDoc, LineIndex, type JsonlLine } from '../json';
import { decodeUtf8 } from '../load';
import { LOADERS } from '../formats/registry';
import type { FileAccess, LoadInput } from '../formats/types';
import type { FormatId, Rollout } from '../model';
import { nodeFiles } from '../nodeFiles';

/** Line positions of one row that starts at line `firstLine`, file offset `base`. */
class RowLineIndex extends LineIndex {
  constructor(
    text: string,
    private readonly firstLine: number,
    private readonly base: number,
  ) {
    super(text);
  }
  override position(offset: number): { line: number; column: number } {
    const p = super.position(Math.max(0, offset - this.base));
    return { line: p.line + this.firstLine - 1, column: p.column };
  }
}

/** Where a row lives in its file. */
export interface RowLocation {
  /** Byte offset of the row's first byte. */
  offset: number;
  /** Length in bytes (without the line break). */
  length: number;
  /** 1-based line. */
  line: number;
}

/** Reads `length` bytes at `offset` of `file`. Throws RolloutLoadError when the file is shorter (it changed). */
export async function readRange(file: string, offset: number, length: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got < length) {
      throw new RolloutLoadError(file, null, [
        { file, line: null, column: null, pointer: null, expected: `${length} bytes at byte ${offset} (the indexed row)`, found: `${got} bytes: the file changed since it was indexed` },
      ]);
    }
    return buf;
  } finally {
    await fh.close();
  }
}

/** A LoadInput holding only one row of a JSONL file, placed at its line and offset. */
export function rowInput(file: string, text: string, at: RowLocation, files: FileAccess = nodeFiles): LoadInput {
  const lines = new RowLineIndex(text, at.line, at.offset);
  const line: JsonlLine = { line: at.line, offset: at.offset, text };
  const parseLine: LoadInput['parseLine'] = (l) => JsonDoc.parse(file, l.text, l.offset, lines, true);
  let firstLineValue: unknown;
  try {
    firstLineValue = JSON.parse(text);
  } catch {
    firstLineValue = undefined;
  }
  return { path: file, text, doc: null, lines: [line], linesKind: 'jsonl', firstLineValue, parseLine, files, issues: [] };
}

/**
 * Loads the rollout of one row with the loader of `format` (the file's format as the index
 * detected it).
 * @param bytes the row's bytes when the caller has them (else they are read from the file)
 * @throws RolloutLoadError (the row does not conform: located issues, as a full load reports them)
 */
export async function loadRow(file: string, format: FormatId, at: RowLocation, bytes?: Buffer, files: FileAccess = nodeFiles): Promise<Rollout> {
  const loader = LOADERS.find((l) => l.id === format);
  if (!loader) throw new Error(`no loader for format ${format}`);
  const b = bytes ?? (await readRange(file, at.offset, at.length));
  // A row is a line: the UTF-8 checks of decodeUtf8 apply (no size limit beyond the line's own).
  const text = decodeUtf8(file, b, Number.MAX_SAFE_INTEGER);
  const rollouts = await loader.load(rowInput(file, text, at, files));
  if (rollouts.length !== 1) throw new Error(`${loader.label}: expected one rollout in line ${at.line}, got ${rollouts.length}`);
  return rollouts[0];
}
