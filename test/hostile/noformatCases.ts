// Cases for noformat.test.ts (run inside the watchdog's worker): files no loader accepts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadFile } from '../../src/core/load';
import { UnknownFormatError, type Declined } from '../../src/core/errors';

/** Loads `text` (written to a temp file `name`) and returns the declines of the UnknownFormatError, or throws. */
export async function declines(name: string, text: string): Promise<{ message: string; declined: Declined[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-hostile-nf-'));
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  try {
    await loadFile(f);
    throw new Error('a loader accepted the file');
  } catch (e) {
    if (!(e instanceof UnknownFormatError)) throw e;
    return { message: e.message, declined: e.declined };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
