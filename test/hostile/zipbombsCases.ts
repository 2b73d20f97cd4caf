// Cases for zipbombs.test.ts (run inside the watchdog's worker): generated decompression bombs,
// opened the way the Inspect loader opens an .eval (ZipArchive), or loaded whole with loadFile.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { loadFile } from '../../src/core/load';
import { ZipArchive, ZipError } from '../../src/core/zip';
import { writeZip, zstdRleBomb } from '../unit/zipWriter';

/** What reading the entry gave: its error message, or its size. */
export interface EntryOutcome {
  archiveBytes: number;
  error: string | null;
  entry: string | null;
  size: number | null;
}

async function readEntry(zip: Buffer, name: string, maxInflatedBytes?: number): Promise<EntryOutcome> {
  const archive = await ZipArchive.open(zip, maxInflatedBytes ? { maxInflatedBytes } : {});
  try {
    const b = await archive.bytes(name);
    return { archiveBytes: zip.length, error: null, entry: null, size: b.length };
  } catch (e) {
    return { archiveBytes: zip.length, error: (e as Error).message, entry: e instanceof ZipError ? name : null, size: null };
  }
}

/** A ~100 KB zstd entry of RLE blocks that inflates to 3 GiB while its directory claims 1 KiB. */
export async function zstdLyingSize(): Promise<EntryOutcome> {
  const raw = zstdRleBomb(3 * 1024 * 1024 * 1024);
  const zip = writeZip([{ name: 'samples/1_epoch_1.json', data: Buffer.alloc(0), raw, size: 1024 }], 93);
  return readEntry(zip, 'samples/1_epoch_1.json');
}

/** A DEFLATE entry of 400 MiB of zeros (≈ 400 KB compressed) whose directory claims 1 KiB. */
export async function deflateLyingSize(): Promise<EntryOutcome> {
  const raw = deflateRawSync(Buffer.alloc(400 * 1024 * 1024));
  const zip = writeZip([{ name: 'samples/1_epoch_1.json', data: Buffer.alloc(0), raw, size: 1024 }], 8);
  return readEntry(zip, 'samples/1_epoch_1.json');
}

/** Honest entries (sizes as declared) that together pass the archive's inflate budget: the one past it is refused unread. */
export async function honestEntriesPastBudget(): Promise<{ first: EntryOutcome; second: EntryOutcome }> {
  const big = Buffer.alloc(40 * 1024 * 1024, 0x20);
  const zip = writeZip([{ name: 'a.json', data: big }, { name: 'b.json', data: big }], 8);
  const archive = await ZipArchive.open(zip, { maxInflatedBytes: 64 * 1024 * 1024 });
  const out: EntryOutcome[] = [];
  for (const name of ['a.json', 'b.json']) {
    try {
      out.push({ archiveBytes: zip.length, error: null, entry: null, size: (await archive.bytes(name)).length });
    } catch (e) {
      out.push({ archiveBytes: zip.length, error: (e as Error).message, entry: name, size: null });
    }
  }
  return { first: out[0], second: out[1] };
}

/** An `.eval` whose header entry is a zstd bomb, loaded with loadFile: a located error, not a hang. */
export async function evalFileWithBomb(): Promise<{ error: string | null; issues: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-zipbomb-'));
  const file = path.join(dir, 'bomb.eval');
  try {
    const raw = zstdRleBomb(2 * 1024 * 1024 * 1024);
    const zip = writeZip(
      [
        { name: 'header.json', data: Buffer.alloc(0), raw, size: 2048 },
        { name: 'samples/1_epoch_1.json', data: Buffer.alloc(0), raw, size: 2048 },
      ],
      93,
    );
    fs.writeFileSync(file, zip);
    try {
      await loadFile(file);
      return { error: null, issues: [] };
    } catch (e) {
      const issues = (e as { issues?: { found: string }[] }).issues ?? [];
      return { error: (e as Error).message, issues: issues.map((i) => i.found) };
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
