/**
 * Engine addresses (core/replay/docker.ts modemOptions): unix sockets, tcp with and without TLS as
 * the docker CLI reads DOCKER_TLS_VERIFY / DOCKER_TLS / DOCKER_CERT_PATH, and the addresses replay
 * refuses with a reason (ssh://, unknown schemes). No engine is needed: the options are inspected.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerHostError, dockerClient, modemOptions } from '../../../src/core/replay/docker';

describe('replay engine address (modemOptions)', () => {
  let certs: string;
  before(() => {
    certs = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-certs-'));
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certs, f), `${f} contents`);
  });
  after(() => fs.rmSync(certs, { recursive: true, force: true }));

  it('unix:// and a bare path are sockets; nothing of a tcp address is left set', () => {
    const o = modemOptions('unix:///run/user/1000/docker.sock', {});
    assert.equal(o.socketPath, '/run/user/1000/docker.sock');
    assert.equal(o.host, undefined);
    assert.equal(o.ca, undefined);
    assert.equal(modemOptions('/var/run/docker.sock', {}).socketPath, '/var/run/docker.sock');
  });

  it('tcp:// without TLS variables is plain http (port 2375 by default); host:port alone is tcp', () => {
    assert.deepEqual({ ...modemOptions('tcp://10.1.2.3', {}) }, { host: '10.1.2.3', port: 2375, protocol: 'http', ca: undefined, cert: undefined, key: undefined, socketPath: undefined });
    assert.equal(modemOptions('box.example:4243', {}).port, 4243);
  });

  it('DOCKER_TLS_VERIFY=1: https with the CA and client certificate from DOCKER_CERT_PATH', () => {
    const o = modemOptions('tcp://127.0.0.1:23760', { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs });
    assert.equal(o.protocol, 'https');
    assert.equal(o.port, 23760);
    assert.equal(String(o.ca), 'ca.pem contents');
    assert.equal(String(o.cert), 'cert.pem contents');
    assert.equal(String(o.key), 'key.pem contents');
  });

  it('port 2376 or DOCKER_TLS means TLS too; DOCKER_TLS_VERIFY=0 does not', () => {
    assert.equal(modemOptions('tcp://h:2376', { DOCKER_CERT_PATH: certs }).protocol, 'https');
    assert.equal(modemOptions('tcp://h:9999', { DOCKER_TLS: '1', DOCKER_CERT_PATH: certs }).protocol, 'https');
    assert.equal(modemOptions('tcp://h:9999', { DOCKER_TLS_VERIFY: '0' }).protocol, 'http');
  });

  it('DOCKER_TLS_VERIFY without a readable ca.pem says where it looked', () => {
    assert.throws(() => modemOptions('tcp://h:2376', { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: path.join(certs, 'nope') }), (e: Error) => e instanceof DockerHostError && /nope\/ca\.pem cannot be read/.test(e.message));
  });

  it('ssh:// is refused with the tunnel to use instead; unknown schemes are refused', () => {
    assert.throws(() => modemOptions('ssh://me@box', {}), /ssh -NL \/tmp\/remote-docker\.sock:\/var\/run\/docker\.sock me@box.*unix:\/\/\/tmp\/remote-docker\.sock/);
    assert.throws(() => modemOptions('npipe:////./pipe/docker_engine', {}), /unknown scheme npipe:/);
  });

  it('an explicit socket is not overridden by a tcp DOCKER_HOST in the environment', () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'tcp://10.9.9.9:2375';
    try {
      const d = dockerClient({ socketPath: '/tmp/x.sock' });
      assert.equal((d.modem as unknown as { socketPath?: string; host?: string }).socketPath, '/tmp/x.sock');
      assert.equal((d.modem as unknown as { host?: string }).host, undefined);
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});
