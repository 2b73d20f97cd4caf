/**
 * A second Docker engine for the remote-engine tests: a `dockerd` of its own (data root, exec root,
 * pid file, its own containerd under the exec root: no state shared with the machine's engine) that
 * listens only on 127.0.0.1:<free port> with TLS and client certificates (`--tlsverify`), no bridge,
 * no iptables. The CA, server and client certificates are made with openssl for the run. The test
 * image is copied in from the main engine (`docker save | docker --host … load`).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** A running second engine. */
export interface SecondEngine {
  /** `tcp://127.0.0.1:PORT`. */
  host: string;
  /** Folder of ca.pem, cert.pem, key.pem (the client's, as DOCKER_CERT_PATH expects). */
  certDir: string;
  /** Folder with only ca.pem (a client without a certificate). */
  caOnlyDir: string;
  /** Environment that points the docker CLI / dockerode at it (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH). */
  env: Record<string, string>;
  /** Runs the docker CLI against it. */
  docker(args: string[], input?: Buffer): string;
  /** Stops dockerd (and its containerd) and removes its folders. */
  stop(): Promise<void>;
}

/** Why the second engine cannot run here (no dockerd / openssl / docker CLI, not root), or null. */
export function secondEngineMissing(): string | null {
  for (const p of ['dockerd', 'openssl', 'docker']) {
    try {
      execFileSync('sh', ['-c', `command -v ${p}`], { stdio: 'ignore' });
    } catch {
      return `${p} is not installed`;
    }
  }
  if (process.getuid?.() !== 0) return 'a second dockerd needs root';
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function makeCerts(dir: string): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=ti-test-ca');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'server-cert.pem', '-days', '1', '-extfile', 'server.ext');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'client.csr', '-subj', '/CN=ti-test-client');
  fs.writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'cert.pem', '-days', '1', '-extfile', 'client.ext');
}

/**
 * Starts the second engine and waits until it answers over TLS (at most `readyMs`).
 * @throws when dockerd exits or does not answer in time (its log is in the message)
 */
export async function startSecondEngine(readyMs = 90_000): Promise<SecondEngine> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-dockerd2-'));
  const certDir = path.join(root, 'certs');
  const caOnlyDir = path.join(root, 'ca-only');
  fs.mkdirSync(certDir);
  fs.mkdirSync(caOnlyDir);
  makeCerts(certDir);
  fs.copyFileSync(path.join(certDir, 'ca.pem'), path.join(caOnlyDir, 'ca.pem'));
  const port = await freePort();
  const host = `tcp://127.0.0.1:${port}`;
  const log = path.join(root, 'dockerd.log');
  const logFd = fs.openSync(log, 'w');
  const p: ChildProcess = spawn(
    'dockerd',
    [
      '--host', host, '--tlsverify',
      '--tlscacert', path.join(certDir, 'ca.pem'), '--tlscert', path.join(certDir, 'server-cert.pem'), '--tlskey', path.join(certDir, 'server-key.pem'),
      '--data-root', path.join(root, 'data'), '--exec-root', path.join(root, 'exec'), '--pidfile', path.join(root, 'dockerd.pid'),
      '--bridge', 'none', '--iptables=false', '--ip6tables=false', '--ip-masq=false',
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  fs.closeSync(logFd);
  let exited = false;
  const exit = new Promise<void>((r) => p.once('exit', () => ((exited = true), r())));
  const env = { DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certDir };
  const docker = (args: string[], input?: Buffer) =>
    execFileSync('docker', args, { env: { ...process.env, ...env }, input, maxBuffer: 1 << 30, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] }).toString('utf8');
  const stop = async () => {
    if (!exited) {
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(t);
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  for (const end = Date.now() + readyMs; ; await new Promise((r) => setTimeout(r, 200))) {
    if (exited || Date.now() > end) {
      const why = exited ? 'dockerd exited' : `dockerd did not answer within ${readyMs / 1000} s`;
      const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
      await stop();
      throw new Error(`${why}; its log ends:\n${text}`);
    }
    try {
      docker(['version', '--format', '{{.Server.Version}}']);
      break;
    } catch {
      /* not up yet */
    }
  }
  return { host, certDir, caOnlyDir, env, docker, stop };
}
