/**
 * A heap view of a running Node process (the extension host) through its inspector, for
 * bench/hostMemory.bench.ts: SIGUSR1 opens the inspector on 127.0.0.1:9229 (Node's default), the
 * Chrome DevTools Protocol over a raw WebSocket (undici) forces full GCs, reads
 * `process.memoryUsage()` in the process, and keeps a sampling heap profile whose samples of
 * collected objects are dropped (so it names the allocation sites of what is still retained).
 */
import * as fs from 'node:fs';
import { WebSocket } from 'undici';

const PORT = 9229;

/** The inode of the socket listening on 127.0.0.1:`port` (from /proc/net/tcp), or null. */
function listeningInode(port: number): string | null {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const l of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = l.trim().split(/\s+/);
    if (f.length > 9 && f[1] === `0100007F:${hex}` && f[3] === '0A') return f[9];
  }
  return null;
}

/** Whether process `pid` holds the socket with inode `inode`. */
function ownsSocket(pid: number, inode: string): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Memory figures of the inspected process in MB (process.memoryUsage()). */
export interface HeapFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** One allocation site of the sampling heap profile: live bytes sampled there (self). */
export interface Site {
  name: string;
  mb: number;
}

/** A CDP session with one Node process's inspector. */
export class HostInspector {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const m = JSON.parse(String(ev.data));
      const p = m.id !== undefined ? this.pending.get(m.id) : undefined;
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) p.reject(new Error(`${JSON.stringify(m.error)}`));
      else p.resolve(m.result);
    });
  }

  /**
   * Opens the inspector of `pid` (SIGUSR1) and connects.
   * @throws when port 9229 is taken by another process, or the inspector does not come up in 20 s
   */
  static async attach(pid: number): Promise<HostInspector> {
    const before = listeningInode(PORT);
    if (before && !ownsSocket(pid, before)) throw new Error(`127.0.0.1:${PORT} is held by another process; cannot inspect pid ${pid}`);
    process.kill(pid, 'SIGUSR1');
    const end = Date.now() + 20_000;
    let url: string | null = null;
    while (!url) {
      const inode = listeningInode(PORT);
      if (inode && ownsSocket(pid, inode)) {
        const list = (await (await fetch(`http://127.0.0.1:${PORT}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
        url = list[0]?.webSocketDebuggerUrl ?? null;
      }
      if (!url) {
        if (Date.now() > end) throw new Error(`the inspector of pid ${pid} did not open on ${PORT}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)));
    });
    const h = new HostInspector(ws);
    await h.send('Runtime.enable');
    await h.send('HeapProfiler.enable');
    return h;
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** process.memoryUsage() of the inspected process, in MB. */
  async usage(): Promise<HeapFigures> {
    const r = await this.send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const u = JSON.parse(r.result.value) as Record<string, number>;
    const mb = (x: number) => x / (1024 * 1024);
    return { rss: mb(u.rss), heapTotal: mb(u.heapTotal), heapUsed: mb(u.heapUsed), external: mb(u.external), arrayBuffers: mb(u.arrayBuffers) };
  }

  /** Two forced full GCs, then the figures. */
  async gcUsage(): Promise<HeapFigures> {
    await this.send('HeapProfiler.collectGarbage');
    await this.send('HeapProfiler.collectGarbage');
    return this.usage();
  }

  /** Starts the sampling heap profiler (one sample per `interval` bytes allocated on average). */
  async startSampling(interval = 64 * 1024): Promise<void> {
    await this.send('HeapProfiler.startSampling', { samplingInterval: interval });
  }

  /** The live sampled allocations by site (function url:line, with its caller), largest first. */
  async retainedSites(top = 25): Promise<Site[]> {
    const { profile } = await this.send('HeapProfiler.getSamplingProfile');
    const by = new Map<string, number>();
    const walk = (n: any, parent: string) => {
      const cf = n.callFrame;
      const here = `${cf.functionName || '(anonymous)'} ${String(cf.url).split('/').slice(-2).join('/')}:${cf.lineNumber + 1}:${cf.columnNumber + 1}`;
      if (n.selfSize) {
        const k = `${here}  <- ${parent}`;
        by.set(k, (by.get(k) ?? 0) + n.selfSize);
      }
      for (const c of n.children ?? []) walk(c, here);
    };
    walk(profile.head, '(root)');
    return [...by].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, b]) => ({ name, mb: b / (1024 * 1024) }));
  }

  close(): void {
    this.ws.close();
  }
}
