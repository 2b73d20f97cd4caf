/**
 * Stands in for the `ssh2` package in the bundles (esbuild alias): docker-modem requires it for
 * `ssh://` DOCKER_HOST values, and it loads native `.node` addons (cpu-features, sshcrypto) that a
 * single-file bundle cannot carry. Replay talks to unix sockets and tcp:// only.
 */
export class Client {
  constructor() {
    throw new Error('ssh:// Docker hosts are not supported by Trajectory Inspector; use a unix socket or tcp:// (e.g. an SSH tunnel to the socket)');
  }
}
