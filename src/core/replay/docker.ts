/**
 * Container manager for replays, over dockerode.
 *
 * Hardening (every container, never loosened by the rollout or a workspace): NetworkMode 'none',
 * memory (= swap) / CPU / pids limits, all capabilities dropped, no-new-privileges, init (tini),
 * a fixed hostname, no mounts, no published ports, labels. Container options come only from
 * `ReplayLimits` (user or machine settings, CLI flags); the plan only gives the image, workdir and
 * the commands.
 *
 * Labels: `trajectory-inspector.replay=1` on everything; `.owner` = `<host>:<pid>` of the process
 * that made it; `.session` = one replay session. `sweepOrphans` removes containers and snapshot
 * images whose owner process is gone (a crashed or killed extension host), never those of a live
 * process (another window).
 *
 * Errors: `DockerUnavailableError` (no engine reachable, with how to point at one),
 * `ImageMissingError` (image absent and could not be pulled).
 */
import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { StreamCollector, type StreamNo, type StreamTexts } from './streams';

/** Label keys; every container and snapshot image the extension makes carries LABEL_MANAGED. */
export const LABEL_MANAGED = 'trajectory-inspector.replay';
export const LABEL_OWNER = 'trajectory-inspector.replay.owner';
export const LABEL_SESSION = 'trajectory-inspector.replay.session';
export const LABEL_STEP = 'trajectory-inspector.replay.step';
/** Repository of snapshot images (`docker commit`), tagged `<session>-<step>`. */
export const SNAPSHOT_REPO = 'trajectory-inspector-snapshot';
/** Fixed hostname, so prompts (`root@replay:/app#`) and `hostname` do not vary per container. */
export const REPLAY_HOSTNAME = 'replay';

/** Resource limits and timeouts; from user / machine settings or CLI flags only. */
export interface ReplayLimits {
  /** Memory (and memory+swap) limit in MiB. */
  memoryMiB: number;
  /** CPUs (fractional allowed). */
  cpus: number;
  /** Most processes in the container (fork bombs stop here). */
  pids: number;
  /** Seconds one step may run before it is stopped (the container's processes are killed). */
  stepTimeoutSec: number;
  /** Bytes of output kept per step; a step that prints more is stopped. */
  outputCapBytes: number;
  /**
   * MiB the container may write into its filesystem (its writable layer): `StorageOpt size` where
   * the storage driver takes it, and `watchDisk` during every step in any case.
   */
  diskMiB: number;
}

/** Defaults of `ReplayLimits` (the settings' defaults, checked against package.json). */
export const DEFAULT_LIMITS: ReplayLimits = { memoryMiB: 2048, cpus: 2, pids: 512, stepTimeoutSec: 60, outputCapBytes: 10 * 1024 * 1024, diskMiB: 4096 };

/**
 * How to reach the engine; both empty = the DOCKER_HOST environment variable, else the default
 * socket. A `tcp://` address (from here or DOCKER_HOST) is reached the way the docker CLI reaches
 * it: TLS when DOCKER_TLS_VERIFY (server certificate checked against the CA) or DOCKER_TLS is set,
 * or the port is 2376; the CA and client certificate from DOCKER_CERT_PATH (`ca.pem`, `cert.pem`,
 * `key.pem`; default `~/.docker`).
 */
export interface DockerTarget {
  /** Unix socket path (setting `trajectoryInspector.replay.dockerSocket`). */
  socketPath?: string | null;
  /** `unix://…` / `tcp://host:port` (setting or `--docker-host`, else the DOCKER_HOST environment variable). */
  dockerHost?: string | null;
}

/** No Docker engine answered. */
export class DockerUnavailableError extends Error {
  constructor(where: string, cause: string) {
    super(
      `No Docker engine is reachable at ${where} (${cause}). Start Docker, or point at an engine: set DOCKER_HOST ` +
        '(e.g. unix:///run/user/1000/docker.sock, or tcp://host:2376 with DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH) or the setting trajectoryInspector.replay.dockerSocket / dockerHost.',
    );
    this.name = 'DockerUnavailableError';
  }
}

/** The image is not on the engine and pulling it failed (or was not possible offline). */
export class ImageMissingError extends Error {
  constructor(image: string, cause: string) {
    super(`Image ${image} is not available on this Docker engine and could not be pulled (${cause}). Build or load it (docker load / docker build), or choose another image.`);
    this.name = 'ImageMissingError';
  }
}

/** Progress of an image pull: per-layer status lines aggregated. */
export interface PullProgress {
  status: string;
  /** Bytes done / total over the layers that reported sizes (0 when unknown). */
  current: number;
  total: number;
}

/** Result of one command run inside the container. */
export interface ExecResult {
  /** Exit code; null when the command was stopped (timeout / output cap) before it exited. */
  exitCode: number | null;
  /** stdout and stderr in arrival order, each decoded as UTF-8 on its own (capped). */
  output: string;
  /** The two streams apart (capped together). */
  streams: StreamTexts;
  /** True when the output passed the cap (the command was stopped). */
  capped: boolean;
  /** True when the step ran past its timeout (the command was stopped). */
  timedOut: boolean;
}

/** `host:pid` of this process, the owner label value. */
export function ownerId(pid = process.pid): string {
  return `${os.hostname()}:${pid}`;
}

/** The address is one replay cannot use (ssh://, an unknown scheme, no host). */
export class DockerHostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DockerHostError';
  }
}

/**
 * Options for dockerode / docker-modem for one engine address (`unix:///path`, `tcp://host:port`,
 * `host:port`), TLS from `env` as the docker CLI reads it (see DockerTarget). Every connection
 * field is set (undefined where unused), so values docker-modem takes from the process environment
 * by itself never mix into another address.
 * @throws DockerHostError for `ssh://` (not supported: use a tunnel, docs/replay.md) and bad addresses
 */
export function modemOptions(address: string, env: NodeJS.ProcessEnv = process.env): Docker.DockerOptions {
  const none = { host: undefined, port: undefined, protocol: undefined, ca: undefined, cert: undefined, key: undefined, socketPath: undefined } as const;
  if (address.startsWith('unix://')) return { ...none, socketPath: address.slice('unix://'.length) || '/var/run/docker.sock' };
  if (address.startsWith('/')) return { ...none, socketPath: address };
  const withScheme = address.includes('//') ? address : `tcp://${address}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new DockerHostError(`${address} is not a Docker engine address (unix:///path/docker.sock or tcp://host:port)`);
  }
  if (u.protocol === 'ssh:') {
    throw new DockerHostError(
      `${address}: ssh:// engines are not reached directly; forward the remote socket over ssh (ssh -NL /tmp/remote-docker.sock:/var/run/docker.sock ${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}) and use unix:///tmp/remote-docker.sock`,
    );
  }
  if (u.protocol !== 'tcp:' && u.protocol !== 'http:' && u.protocol !== 'https:') throw new DockerHostError(`${address}: unknown scheme ${u.protocol} (use unix:// or tcp://)`);
  if (!u.hostname) throw new DockerHostError(`${address}: no host in the address`);
  const on = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
  const tls = u.protocol === 'https:' || on(env.DOCKER_TLS_VERIFY) || on(env.DOCKER_TLS) || u.port === '2376';
  const port = Number(u.port || (tls ? 2376 : 2375));
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!tls) return { ...none, host, port, protocol: 'http' };
  const dir = env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker');
  const read = (f: string): Buffer | undefined => {
    try {
      return fs.readFileSync(path.join(dir, f));
    } catch {
      return undefined;
    }
  };
  const [ca, cert, key] = [read('ca.pem'), read('cert.pem'), read('key.pem')];
  if (on(env.DOCKER_TLS_VERIFY) && !ca) throw new DockerHostError(`${address}: DOCKER_TLS_VERIFY is set but ${path.join(dir, 'ca.pem')} cannot be read (set DOCKER_CERT_PATH to the folder of ca.pem, cert.pem, key.pem)`);
  return { ...none, host, port, protocol: 'https', ca, cert, key };
}

function describeTarget(t: DockerTarget): string {
  if (t.socketPath) return t.socketPath;
  if (t.dockerHost) return t.dockerHost;
  return process.env.DOCKER_HOST || '/var/run/docker.sock';
}

/**
 * A dockerode client for the target (no request made).
 * @throws DockerHostError when the address cannot be used (modemOptions)
 */
export function dockerClient(t: DockerTarget = {}): Docker {
  if (t.socketPath) return new Docker(modemOptions(`unix://${t.socketPath}`));
  const address = t.dockerHost || process.env.DOCKER_HOST || null;
  if (address) return new Docker(modemOptions(address));
  return new Docker(); // the default socket (~/.docker/run/docker.sock, else /var/run/docker.sock)
}

/**
 * Connects and pings the engine.
 * @throws DockerUnavailableError when it does not answer within `timeoutMs`
 */
export async function connect(t: DockerTarget = {}, timeoutMs = 5000): Promise<Docker> {
  let docker: Docker;
  try {
    docker = dockerClient(t);
  } catch (e) {
    throw new DockerUnavailableError(describeTarget(t), (e as Error).message);
  }
  try {
    await (docker.ping as (o: object) => Promise<unknown>)({ abortSignal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new DockerUnavailableError(describeTarget(t), (e as Error).message || String(e));
  }
  return docker;
}

/**
 * Makes sure `image` is on the engine: inspects it, else pulls it with progress.
 * @throws ImageMissingError when absent and the pull fails (offline, unknown image, no auth)
 */
export async function ensureImage(docker: Docker, image: string, onProgress?: (p: PullProgress) => void, signal?: AbortSignal): Promise<void> {
  try {
    await docker.getImage(image).inspect();
    return;
  } catch {
    /* not present: pull */
  }
  try {
    const stream = (await docker.pull(image, { abortSignal: signal } as object)) as unknown as Readable;
    const layers = new Map<string, { current: number; total: number }>();
    const events: Array<{ error?: string; status?: string }> = await new Promise((resolve, reject) => {
      docker.modem.followProgress(stream, (err: Error | null, out: unknown[]) => (err ? reject(err) : resolve(out as never)), (ev: { id?: string; status?: string; progressDetail?: { current?: number; total?: number } }) => {
        if (ev.id && ev.progressDetail?.total) layers.set(ev.id, { current: ev.progressDetail.current ?? 0, total: ev.progressDetail.total });
        let current = 0;
        let total = 0;
        for (const l of layers.values()) {
          current += l.current;
          total += l.total;
        }
        onProgress?.({ status: `${ev.id ? ev.id + ': ' : ''}${ev.status ?? ''}`, current, total });
      });
    });
    // followProgress reports success even when a line carries an error (reference §2.8): scan them.
    const failed = events.find((e) => e.error);
    if (failed) throw new Error(failed.error);
  } catch (e) {
    throw new ImageMissingError(image, (e as Error).message || String(e));
  }
  try {
    await docker.getImage(image).inspect();
  } catch (e) {
    throw new ImageMissingError(image, `the pull finished but the image is absent: ${(e as Error).message}`);
  }
}

/** The hardened create options; exported so tests can assert on them. Nothing here comes from the rollout but image / workdir. */
export function hardenedCreateOptions(o: { image: string; workdir: string | null; session: string; limits: ReplayLimits; env?: string[] }): Docker.ContainerCreateOptions {
  const mem = Math.round(o.limits.memoryMiB * 1024 * 1024);
  return {
    Image: o.image,
    // The lifeline: the main process reads stdin, attached by the owner (ReplayContainer.attachLifeline)
    // before each start; when the owner's connection closes — however the owner died — stdin ends
    // (StdinOnce), the main process exits and the container stops with every process in it.
    Cmd: ['sh', '-c', 'while read -r _; do :; done; kill -KILL -1 2>/dev/null; exit 0'],
    Entrypoint: [],
    Hostname: REPLAY_HOSTNAME,
    WorkingDir: o.workdir ?? undefined,
    Env: o.env ?? [],
    Tty: false,
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: false,
    AttachStderr: false,
    NetworkDisabled: true,
    Labels: { [LABEL_MANAGED]: '1', [LABEL_OWNER]: ownerId(), [LABEL_SESSION]: o.session },
    HostConfig: {
      NetworkMode: 'none',
      Memory: mem,
      MemorySwap: mem,
      NanoCpus: Math.round(o.limits.cpus * 1e9),
      PidsLimit: o.limits.pids,
      CapDrop: ['ALL'],
      CapAdd: [],
      SecurityOpt: ['no-new-privileges:true'],
      Init: true,
      Privileged: false,
      ReadonlyRootfs: false,
      AutoRemove: false,
      Binds: [],
      Mounts: [],
      PortBindings: {},
      PublishAllPorts: false,
      IpcMode: 'private',
      PidMode: '',
      RestartPolicy: { Name: 'no' },
    } as Docker.HostConfig,
  };
}

/** Engines (per client) whose storage driver refused `StorageOpt size` (overlay2 without xfs pquota, …). */
const noStorageOpt = new WeakSet<Docker>();

/** Creates a hardened container, with `StorageOpt size` when the engine's storage driver takes it. */
async function createHardened(docker: Docker, o: Parameters<typeof hardenedCreateOptions>[0]): Promise<Docker.Container> {
  const opts = hardenedCreateOptions(o);
  if (!noStorageOpt.has(docker)) {
    try {
      return await docker.createContainer({ ...opts, HostConfig: { ...opts.HostConfig, StorageOpt: { size: `${Math.round(o.limits.diskMiB)}M` } } });
    } catch (e) {
      if (!/storage[- ]?opt|quota|size/i.test((e as Error).message)) throw e;
      noStorageOpt.add(docker);
    }
  }
  return docker.createContainer(opts);
}

/**
 * One replay container: create, run commands, snapshot, restore, remove.
 * Not re-entrant: one command at a time (the executors serialise).
 */
export class ReplayContainer {
  private constructor(
    readonly docker: Docker,
    public container: Docker.Container,
    readonly session: string,
    readonly limits: ReplayLimits,
    private readonly base: { workdir: string | null; env: string[] },
  ) {}

  /** Images this container's session committed, by id (removed by `dispose`). */
  readonly snapshots: string[] = [];
  private commits = 0;

  /**
   * Creates and starts a hardened container of `image`.
   * @param session the session id for labels (random when omitted)
   */
  static async start(docker: Docker, image: string, o: { workdir: string | null; limits: ReplayLimits; session?: string; env?: string[] }): Promise<ReplayContainer> {
    const session = o.session ?? randomBytes(6).toString('hex');
    const env = o.env ?? [];
    const c = await createHardened(docker, { image, workdir: o.workdir, session, limits: o.limits, env });
    const rc = new ReplayContainer(docker, c, session, o.limits, { workdir: o.workdir, env });
    try {
      await rc.attachLifeline();
      await c.start();
    } catch (e) {
      await c.remove({ force: true }).catch(() => undefined);
      throw e;
    }
    return rc;
  }

  get id(): string {
    return this.container.id;
  }

  private lifeline: { destroy(): void } | null = null;

  /**
   * Attaches this process to the container's stdin (before it starts): the connection lives as
   * long as this process, and its end ends the container's main process (hardenedCreateOptions).
   * The socket does not keep the process alive (unref).
   */
  async attachLifeline(): Promise<void> {
    this.lifeline?.destroy();
    const sock = (await this.container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true })) as unknown as { destroy(): void; unref?: () => void; on(e: string, f: () => void): void };
    sock.on('error', () => undefined);
    sock.unref?.();
    this.lifeline = sock;
  }

  /**
   * Runs `cmd` (argv) once with stdout and stderr apart (Tty off), the exit code read after the stream ends.
   * `onData` streams decoded text. When `timeoutSec` passes or the output passes the cap, every
   * process in the container is killed (`kill()` then `start()`: the filesystem stays) and the
   * result says so.
   */
  async exec(cmd: string[], o: { workdir?: string | null; env?: string[]; timeoutSec?: number; onData?: (text: string) => void } = {}): Promise<ExecResult> {
    const exec = await this.container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false, WorkingDir: o.workdir ?? undefined, Env: o.env });
    const stream = (await exec.start({ hijack: false, stdin: false })) as unknown as Readable;
    const collected = this.collect(stream, o.onData);
    const stopped = await this.watch(collected.done, collected.capped, o.timeoutSec ?? this.limits.stepTimeoutSec);
    if (stopped) {
      stream.destroy();
      const t = collected.streams();
      return { exitCode: null, output: t.arrival, streams: t, capped: stopped === 'cap', timedOut: stopped === 'timeout' };
    }
    let info = await exec.inspect();
    for (let i = 0; (info.Running || info.ExitCode === null) && i < 20; i++) {
      await new Promise((r) => setTimeout(r, Math.min(10 * 2 ** i, 500)));
      info = await exec.inspect();
    }
    const t = collected.streams();
    return { exitCode: info.ExitCode ?? null, output: t.arrival, streams: t, capped: false, timedOut: false };
  }

  /**
   * Reads a multiplexed exec stream (capped): stdout and stderr apart, each with its own decoder
   * (streams.ts); `onData` gets text in arrival order; `done` resolves at the stream's end.
   */
  collect(stream: Readable, onData?: (text: string) => void): { done: Promise<void>; capped: Promise<void>; text: () => string; streams: () => StreamTexts & { arrival: string } } {
    const out = new PassThrough();
    const err = new PassThrough();
    const got = new StreamCollector(this.limits.outputCapBytes);
    let hitCap: () => void = () => undefined;
    const capped = new Promise<void>((r) => (hitCap = r));
    const take = (s: StreamNo) => (b: Buffer) => {
      if (got.overCap) return;
      const { kept } = got.push(s, b);
      if (kept) onData?.(kept);
      if (got.bytes >= got.capBytes) hitCap();
    };
    out.on('data', take(0));
    err.on('data', take(1));
    this.docker.modem.demuxStream(stream, out, err);
    const done = new Promise<void>((resolve) => {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    });
    let ended = false;
    const streams = () => {
      if (!ended) got.end();
      ended = true;
      return got.texts();
    };
    return { done, capped, text: () => streams().arrival, streams };
  }

  /** Waits for `done`; on timeout or cap kills every process of the container. Returns why it stopped, or null. */
  private async watch(done: Promise<void>, capped: Promise<void>, timeoutSec: number): Promise<'timeout' | 'cap' | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutSec * 1000)));
    const why = await Promise.race([done.then(() => null), capped.then(() => 'cap' as const), timeout]);
    clearTimeout(timer);
    if (why) await this.killAll();
    return why;
  }

  /**
   * Stops every process in the container (including a fork bomb that filled the pids limit, where
   * no new `docker exec` could start) and starts it again: the filesystem is kept, shells restart.
   */
  killAll(): Promise<void> {
    // One at a time: the disk watch and an executor may both stop the container.
    this.killing ??= (async () => {
      await this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
      await this.container.wait({ condition: 'not-running' } as object).catch(() => undefined);
      await this.attachLifeline();
      await this.container.start().catch((e: { statusCode?: number }) => {
        if (e?.statusCode !== 304) throw e; // 304: already started
      });
    })().finally(() => {
      this.killing = null;
    });
    return this.killing;
  }

  private killing: Promise<void> | null = null;
  /** Largest writable-layer size seen by watchDisk (bytes). */
  private diskSize = 0;

  /**
   * Watches the size of the container's writable layer (`inspect?size=true`, once a second) while a
   * step runs; past `limits.diskMiB` every process is stopped (killAll) and `exceeded` is set.
   * The size counts what earlier steps wrote too (the limit is the container's, not the step's),
   * but only a step that makes it grow past the limit is stopped.
   */
  watchDisk(periodMs = 1000): { stop(): Promise<void>; readonly exceeded: boolean } {
    let stopped = false;
    let exceeded = false;
    // The wait between two looks ends at once when the step ends (stop), not a period later.
    let wakeNow: () => void = () => undefined;
    const limit = this.limits.diskMiB * 1024 * 1024;
    const loop = (async () => {
      while (!stopped) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, periodMs);
          wakeNow = () => {
            clearTimeout(t);
            r();
          };
        });
        if (stopped) break;
        const info = (await (this.container.inspect as (o: object) => Promise<{ SizeRw?: number }>)({ size: true }).catch(() => null));
        if (info?.SizeRw === undefined) continue;
        // Over the limit and still growing: a step that only reads is not stopped for what earlier ones wrote.
        const grew = info.SizeRw > this.diskSize + (1 << 20);
        this.diskSize = Math.max(this.diskSize, info.SizeRw);
        if (!stopped && grew && info.SizeRw > limit) {
          exceeded = true;
          stopped = true;
          await this.killAll().catch(() => undefined);
          // What it wrote between the check and the kill is not the next step's growth.
          const now = await (this.container.inspect as (o: object) => Promise<{ SizeRw?: number }>)({ size: true }).catch(() => null);
          this.diskSize = Math.max(this.diskSize, now?.SizeRw ?? 0);
        }
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wakeNow();
        await loop;
      },
      get exceeded() {
        return exceeded;
      },
    };
  }

  /**
   * Commits the container's filesystem to a labelled snapshot image (`docker commit`, paused).
   * @returns the image reference `trajectory-inspector-snapshot:<session>-<tag>-<n>`
   */
  async snapshot(tag: string): Promise<string> {
    // A unique tag per commit: re-snapshotting a step after Step back must not orphan the old image.
    const full = `${this.session}-${tag}-${++this.commits}`;
    const res = (await this.container.commit({
      repo: SNAPSHOT_REPO,
      tag: full,
      pause: true,
      changes: [`LABEL ${LABEL_MANAGED}=1`, `LABEL ${LABEL_OWNER}=${ownerId()}`, `LABEL ${LABEL_SESSION}=${this.session}`, `LABEL ${LABEL_STEP}=${tag}`],
    } as object)) as { Id?: string } | undefined;
    const ref = `${SNAPSHOT_REPO}:${full}`;
    this.snapshots.push(res?.Id ?? ref);
    return ref;
  }

  /** Replaces the running container by a fresh hardened one from `image` (a snapshot or the base image). */
  async restore(image: string): Promise<void> {
    const old = this.container;
    const c = await createHardened(this.docker, { image, workdir: this.base.workdir, session: this.session, limits: this.limits, env: this.base.env });
    this.container = c;
    await this.attachLifeline();
    await c.start();
    await old.remove({ force: true, v: true }).catch(() => undefined);
  }

  /** Removes the container and every snapshot image of this session. Never throws. */
  async dispose(): Promise<void> {
    await this.container.remove({ force: true, v: true }).catch(() => undefined);
    this.lifeline?.destroy();
    this.lifeline = null;
    for (const ref of this.snapshots.splice(0)) await this.docker.getImage(ref).remove({ force: true }).catch(() => undefined);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the containers and snapshot images this extension made whose owner process is gone
 * (same host, pid no longer alive), or all of this extension's when `all` is set. Labels other than
 * LABEL_MANAGED are never swept: the sweep is scoped to this extension.
 * @returns how many containers and images were removed
 */
export async function sweepOrphans(docker: Docker, o: { all?: boolean; session?: string } = {}): Promise<{ containers: number; images: number }> {
  const host = os.hostname();
  const isOrphan = (labels: Record<string, string> | undefined | null): boolean => {
    if (!labels || labels[LABEL_MANAGED] !== '1') return false;
    if (o.session) return labels[LABEL_SESSION] === o.session;
    if (o.all) return true;
    const owner = labels[LABEL_OWNER] ?? '';
    const at = owner.lastIndexOf(':');
    const ownerHost = owner.slice(0, at);
    const pid = Number(owner.slice(at + 1));
    return ownerHost === host && Number.isInteger(pid) && !pidAlive(pid);
  };
  let containers = 0;
  let images = 0;
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=1`] } });
  for (const c of list) {
    if (!isOrphan(c.Labels)) continue;
    await docker.getContainer(c.Id).remove({ force: true, v: true }).then(() => containers++, () => undefined);
  }
  const imgs = await docker.listImages({ filters: { label: [`${LABEL_MANAGED}=1`] } });
  for (const i of imgs) {
    if (!isOrphan(i.Labels)) continue;
    await docker.getImage(i.Id).remove({ force: true }).then(() => images++, () => undefined);
  }
  return { containers, images };
}
