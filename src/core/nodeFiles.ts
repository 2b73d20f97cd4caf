/** FileAccess over Node's fs (used by the CLI, the tests and the extension host, which runs on Node). */
import { promises as fs } from 'node:fs';
import type { FileAccess } from './formats/types';

export const nodeFiles: FileAccess = {
  async readText(path) {
    try {
      const st = await fs.stat(path);
      if (!st.isFile()) return null;
      return await fs.readFile(path, 'utf8');
    } catch {
      return null;
    }
  },
  async readBytes(path) {
    try {
      const st = await fs.stat(path);
      if (!st.isFile()) return null;
      return await fs.readFile(path);
    } catch (e) {
      // Missing: null. There but unreadable (EACCES, EIO, too large for a buffer): say why.
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG') return null;
      throw e;
    }
  },
  async isDirectory(path) {
    try {
      return (await fs.stat(path)).isDirectory();
    } catch {
      return false;
    }
  },
  async realpath(path) {
    try {
      return await fs.realpath(path);
    } catch {
      return null;
    }
  },
  async listError(path) {
    try {
      await fs.readdir(path);
      return null;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      return code === 'EACCES' || code === 'EPERM' ? `permission denied (${code})` : `a read error (${code ?? (e as Error).message})`;
    }
  },
  async list(path) {
    try {
      return await fs.readdir(path);
    } catch {
      return [];
    }
  },
};
