/**
 * `EditFs` over a replay container: files are read with `cat` and written with `cat > FILE` fed
 * through the exec's stdin, inside the container, as its user — so permissions, read-only
 * folders and symlinks behave as they would for the agent's own tool; nothing is mounted and the
 * container's hardening is unchanged. Text only: a file with NUL bytes or that is not UTF-8 is
 * reported as unreadable (an edit of it does not apply), one larger than the output cap too.
 */
import type { Readable, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import type { EditFs, FileState } from './applyPatch';
import type { ReplayContainer } from './docker';

interface RawResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  capped: boolean;
}

/** Exit codes of the read script. */
const IS_DIR = 3;
const MISSING = 4;
const UNREADABLE = 5;

const READ_SCRIPT = `if [ -d "$1" ]; then exit ${IS_DIR}; fi; if [ ! -e "$1" ]; then exit ${MISSING}; fi; if [ ! -r "$1" ]; then exit ${UNREADABLE}; fi; exec cat -- "$1"`;
const WRITE_SCRIPT = 'd=$(dirname -- "$1") && mkdir -p -- "$d" && cat > "$1"';
const REMOVE_SCRIPT = 'if [ -d "$1" ]; then echo "is a directory" >&2; exit 1; fi; rm -- "$1"';

/** File access inside a replay container (see the module comment). */
export class ContainerFs implements EditFs {
  constructor(private readonly c: ReplayContainer) {}

  /** Runs `cmd` with stdout and stderr kept apart, `stdin` written then closed. */
  private async raw(cmd: string[], stdin?: Buffer): Promise<RawResult> {
    const exec = await this.c.container.exec({ Cmd: cmd, AttachStdin: stdin !== undefined, AttachStdout: true, AttachStderr: true, Tty: false });
    const stream = (await exec.start({ hijack: stdin !== undefined, stdin: stdin !== undefined })) as unknown as Readable & Writable;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let capped = false;
    const cap = this.c.limits.outputCapBytes;
    const o = new PassThrough();
    const e = new PassThrough();
    o.on('data', (b: Buffer) => {
      bytes += b.length;
      if (bytes > cap) {
        capped = true;
        stream.destroy();
      } else out.push(b);
    });
    e.on('data', (b: Buffer) => err.push(b));
    this.c.docker.modem.demuxStream(stream, o, e);
    const done = new Promise<void>((resolve) => {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    });
    if (stdin !== undefined) {
      stream.write(stdin);
      stream.end();
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), this.c.limits.stepTimeoutSec * 1000)));
    const why = await Promise.race([done.then(() => null), timeout]);
    clearTimeout(timer);
    if (why === 'timeout') {
      stream.destroy();
      await this.c.killAll();
      return { exitCode: null, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), timedOut: true, capped };
    }
    if (capped) return { exitCode: null, stdout: Buffer.alloc(0), stderr: '', timedOut: false, capped };
    let info = await exec.inspect();
    for (let i = 0; (info.Running || info.ExitCode === null) && i < 20; i++) {
      await new Promise((r) => setTimeout(r, Math.min(10 * 2 ** i, 500)));
      info = await exec.inspect();
    }
    return { exitCode: info.ExitCode ?? null, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), timedOut: false, capped };
  }

  private static why(r: RawResult, fallback: string): string {
    if (r.timedOut) return 'timed out (the container was restarted)';
    if (r.capped) return 'larger than the output cap';
    const line = r.stderr.trim().split('\n').pop()?.replace(/^(?:sh|bash|cat|rm|mkdir)(?:: line \d+)?: /, '') ?? '';
    return line || `${fallback} (exit ${r.exitCode})`;
  }

  async read(path: string): Promise<FileState> {
    const r = await this.raw(['sh', '-c', READ_SCRIPT, 'sh', path]);
    if (r.exitCode === IS_DIR) return { kind: 'directory' };
    if (r.exitCode === MISSING) return { kind: 'missing' };
    if (r.exitCode === UNREADABLE) return { kind: 'unreadable', reason: 'permission denied' };
    if (r.exitCode !== 0) return { kind: 'unreadable', reason: ContainerFs.why(r, 'cat failed') };
    if (r.stdout.includes(0)) return { kind: 'unreadable', reason: 'a binary file (NUL bytes)' };
    try {
      return { kind: 'file', text: new TextDecoder('utf-8', { fatal: true }).decode(r.stdout) };
    } catch {
      return { kind: 'unreadable', reason: 'not UTF-8 text' };
    }
  }

  async write(path: string, text: string): Promise<void> {
    const r = await this.raw(['sh', '-c', WRITE_SCRIPT, 'sh', path], Buffer.from(text, 'utf8'));
    if (r.exitCode !== 0) throw new Error(ContainerFs.why(r, 'write failed'));
  }

  async remove(path: string): Promise<void> {
    const r = await this.raw(['sh', '-c', REMOVE_SCRIPT, 'sh', path]);
    if (r.exitCode !== 0) throw new Error(ContainerFs.why(r, 'rm failed'));
  }
}
