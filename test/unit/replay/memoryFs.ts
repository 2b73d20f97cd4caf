/**
 * An in-memory `EditFs` for the edit and apply_patch tests: files by absolute path, folders
 * implied by them (plus explicit ones), a set of read-only folders whose writes fail like a
 * container's `Permission denied`.
 */
import * as posix from 'node:path/posix';
import type { EditFs, FileState } from '../../../src/core/replay/applyPatch';

export class MemoryFs implements EditFs {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>(['/']);
  readonly readOnly = new Set<string>();
  /** Every write and remove, in order (for "nothing was written" assertions). */
  readonly log: string[] = [];

  constructor(files: Record<string, string> = {}) {
    for (const [p, t] of Object.entries(files)) this.put(p, t);
  }

  /** Sets a file (and its folders) without logging. */
  put(p: string, text: string): this {
    this.files.set(p, text);
    for (let d = posix.dirname(p); !this.dirs.has(d); d = posix.dirname(d)) this.dirs.add(d);
    return this;
  }

  mkdir(p: string): this {
    for (let d = p; !this.dirs.has(d); d = posix.dirname(d)) this.dirs.add(d);
    return this;
  }

  async read(p: string): Promise<FileState> {
    if (this.files.has(p)) return { kind: 'file', text: this.files.get(p)! };
    if (this.dirs.has(p)) return { kind: 'directory' };
    return { kind: 'missing' };
  }

  private check(p: string): void {
    for (const ro of this.readOnly) if (p === ro || p.startsWith(ro + '/')) throw new Error(`can't create ${p}: Permission denied`);
  }

  async write(p: string, text: string): Promise<void> {
    this.check(p);
    if (this.dirs.has(p)) throw new Error(`can't create ${p}: Is a directory`);
    this.log.push(`write ${p}`);
    this.put(p, text);
  }

  async remove(p: string): Promise<void> {
    this.check(p);
    if (!this.files.has(p)) throw new Error(`can't remove '${p}': No such file or directory`);
    this.log.push(`remove ${p}`);
    this.files.delete(p);
  }
}
