/**
 * Shared setup of the replay integration tests: a real Docker engine (dockerode), a small image
 * built offline (image.sh: busybox + the host's bash and tmux), and cleanup of everything the tests
 * made (containers and snapshot images by session label, the test image), also after failures.
 * Without an engine the tests skip locally and fail in CI (CI=true).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { connect, DEFAULT_LIMITS, LABEL_SESSION, type ReplayLimits } from '../../../src/core/replay/docker';

export const RUN_ID = `t${process.pid}`;
export const TEST_IMAGE = `ti-replay-test:${RUN_ID}`;
export const TEST_LABEL = 'trajectory-inspector.test';

let counter = 0;
/** A session id for a test's containers; cleanup removes everything with this run's prefix. */
export function testSession(): string {
  return `${RUN_ID}-${++counter}`;
}

/** Limits small enough for tests. */
export function testLimits(over: Partial<ReplayLimits> = {}): ReplayLimits {
  return { ...DEFAULT_LIMITS, memoryMiB: 256, cpus: 1, pids: 128, stepTimeoutSec: 20, ...over };
}

let docker: Docker | null = null;
let built = false;

/** Connects (skips / fails the suite without an engine) and builds the test image once. */
export async function setupDocker(ctx: Mocha.Context): Promise<Docker> {
  if (!docker) {
    try {
      docker = await connect({});
    } catch (e) {
      if (process.env.CI === 'true') throw e;
      console.warn(`replay integration tests skipped: ${(e as Error).message}`);
      ctx.skip();
    }
  }
  if (!built) {
    execFileSync('bash', [path.join(__dirname, 'image.sh'), TEST_IMAGE, `${TEST_LABEL}=${RUN_ID}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    built = true;
  }
  return docker!;
}

/** Removes every container and image this test run made (by session prefix and test label). */
export async function cleanupDocker(): Promise<void> {
  if (!docker) return;
  const d = docker;
  const mine = (labels: Record<string, string> | null | undefined) => (labels?.[LABEL_SESSION] ?? '').startsWith(`${RUN_ID}-`) || labels?.[TEST_LABEL] === RUN_ID;
  for (const c of await d.listContainers({ all: true })) if (mine(c.Labels)) await d.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined);
  for (const i of await d.listImages()) if (mine(i.Labels)) await d.getImage(i.Id).remove({ force: true }).catch(() => undefined);
  await d.getImage(TEST_IMAGE).remove({ force: true }).catch(() => undefined);
  built = false;
}

/** Containers and images left with a session label. */
export async function leftovers(d: Docker, session: string): Promise<{ containers: number; images: number }> {
  const f = { label: [`${LABEL_SESSION}=${session}`] };
  return { containers: (await d.listContainers({ all: true, filters: f })).length, images: (await d.listImages({ filters: f })).length };
}

/** Runs a shell command in a container (test-side checks), returning stdout. */
export async function sh(d: Docker, id: string, cmd: string): Promise<string> {
  const exec = await d.getContainer(id).exec({ Cmd: ['sh', '-c', cmd], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  const { PassThrough } = await import('node:stream');
  const out = new PassThrough();
  out.on('data', (b: Buffer) => chunks.push(b));
  d.modem.demuxStream(stream, out, out);
  await new Promise<void>((r) => {
    stream.on('end', () => r());
    stream.on('close', () => r());
  });
  return Buffer.concat(chunks).toString('utf8');
}
