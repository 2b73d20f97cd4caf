#!/usr/bin/env bash
# Installs what the webview and e2e test tiers (and `npm start` without a desktop VS Code) need:
#   - Debian packages: Chromium, fonts for screenshots, ripgrep, and the build deps of code-server's
#     native modules (only when running as root; otherwise it prints what to install and fails).
#   - code-server 4.100.3 (the last release on Node 20) into a cache folder outside the repository:
#     ${TRAJECTORY_INSPECTOR_CACHE:-$HOME/.cache/trajectory-inspector}/code-server-4.100.3
#     reused when present and valid (a completed-install marker and `code-server --version` works).
# Idempotent: a second run with everything in place takes about a second.
# Recipe: ../shared/docs/TESTING.md ("code-server", "Chromium and Playwright").
#
#   - With --with-docker: Debian's docker.io and busybox-static, and a running dockerd
#     (`--bridge=none --iptables=false --ip-masq=false`, log /tmp/dockerd.log) for the integration tier.
# Usage: scripts/setup-test-env.sh [--with-docker] [--print-code-server]
#   --print-code-server  only print the path of the code-server binary (exit 1 when not installed)
# Env: TRAJECTORY_INSPECTOR_CACHE  cache root (default ~/.cache/trajectory-inspector)
#      SETUP_SKIP_APT=1            do not check/install Debian packages
set -euo pipefail

CS_VERSION=4.100.3
RG_PKG_VERSION=1.15.11   # @vscode/ripgrep version that VS Code 1.100 pins
RG_VERSION=v13.0.0-10    # the ripgrep release that @vscode/ripgrep 1.15.11 downloads
CACHE_ROOT="${TRAJECTORY_INSPECTOR_CACHE:-${HOME:-/root}/.cache/trajectory-inspector}"
CS_DIR="$CACHE_ROOT/code-server-$CS_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
CS_MARKER="$CS_DIR/.install-complete"

APT_PACKAGES=(
  chromium                     # the browser Playwright drives (/usr/bin/chromium)
  fonts-liberation fonts-dejavu-core   # readable text in screenshots
  ripgrep                      # replaces @vscode/ripgrep's download (no GitHub access)
  libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev  # code-server native modules
  build-essential python3 pkg-config                       # node-gyp
  python3-torch                # PyTorch (CPU) for the Python PRM scorer's tests (scorers/python)
)

log() { printf '[setup-test-env] %s\n' "$*" >&2; }

code_server_ok() {
  [[ -f "$CS_MARKER" && -x "$CS_BIN" ]] || return 1
  local out
  # The first run may print more (e.g. a note about writing its default config): look at all lines.
  out="$("$CS_BIN" --version 2>&1)" || return 1
  grep -q "^$CS_VERSION " <<<"$out"
}

WITH_DOCKER=0
for arg in "$@"; do
  case "$arg" in
    --print-code-server)
      if code_server_ok; then echo "$CS_BIN"; exit 0; fi
      exit 1 ;;
    --with-docker) WITH_DOCKER=1 ;;
    *) log "unknown argument: $arg"; exit 2 ;;
  esac
done
if ((WITH_DOCKER)); then APT_PACKAGES+=(docker.io busybox-static tmux); fi  # tmux: copied into the replay test image

# ---------------------------------------------------------------- Debian packages
missing_packages() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      echo "$p"
    fi
  done
}

if [[ "${SETUP_SKIP_APT:-0}" != "1" ]]; then
  if ! command -v dpkg-query >/dev/null; then
    log "not a Debian-like system: make sure these are installed: ${APT_PACKAGES[*]}"
  else
    mapfile -t MISSING < <(missing_packages)
    if ((${#MISSING[@]})); then
      if [[ "$(id -u)" == "0" ]]; then
        log "installing Debian packages: ${MISSING[*]}"
        export DEBIAN_FRONTEND=noninteractive
        # Wait for another apt/dpkg run instead of failing on the lock.
        apt-get -o DPkg::Lock::Timeout=900 update -qq
        apt-get -o DPkg::Lock::Timeout=900 install -y -q "${MISSING[@]}"
      else
        log "missing Debian packages (run as root to install them):"
        log "  sudo apt-get install -y ${MISSING[*]}"
        exit 1
      fi
    else
      log "Debian packages present"
    fi
  fi
fi

[[ -x /usr/bin/chromium ]] || { log "FAIL: /usr/bin/chromium is missing"; exit 1; }
command -v rg >/dev/null || { log "FAIL: ripgrep (rg) is missing"; exit 1; }

# ---------------------------------------------------------------- dockerd (--with-docker)
if ((WITH_DOCKER)); then
  if docker info >/dev/null 2>&1; then
    log "dockerd running"
  elif [[ "$(id -u)" == "0" ]]; then
    log "starting dockerd (log /tmp/dockerd.log)"
    setsid nohup dockerd --bridge=none --iptables=false --ip-masq=false >/tmp/dockerd.log 2>&1 < /dev/null &
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    if ! docker info >/dev/null 2>&1; then log "FAIL: dockerd did not come up:"; tail -n 40 /tmp/dockerd.log >&2; exit 1; fi
    log "dockerd up"
  else
    log "FAIL: dockerd is not running; start it as root: dockerd --bridge=none --iptables=false --ip-masq=false &"
    exit 1
  fi
fi

# ---------------------------------------------------------------- code-server
mkdir -p "$CACHE_ROOT"
# One installer at a time (two `npm test` runs may start together).
exec 9>"$CACHE_ROOT/.code-server-$CS_VERSION.lock"
if ! flock -w 1200 9; then log "FAIL: timed out waiting for another code-server install"; exit 1; fi

if code_server_ok; then
  log "code-server $CS_VERSION present: $CS_BIN"
else
  start=$(date +%s)
  log "installing code-server $CS_VERSION into $CS_DIR (about 3 minutes, ~300 MB)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # @vscode/ripgrep's postinstall downloads ripgrep from GitHub; it accepts a pre-placed asset in
  # <tmpdir>/vscode-ripgrep-cache-<version>/. Feed it Debian's rg.
  TMP_ROOT="${TMPDIR:-/tmp}"
  RG_CACHE="$TMP_ROOT/vscode-ripgrep-cache-$RG_PKG_VERSION"
  RG_ASSET="$RG_CACHE/ripgrep-$RG_VERSION-x86_64-unknown-linux-musl.tar.gz"
  if [[ "$(uname -m)" != "x86_64" ]]; then
    log "note: $(uname -m) is not x86_64; the ripgrep cache trick below is for x86_64 only"
  fi
  if [[ ! -s "$RG_ASSET" ]]; then
    rgpkg="$(mktemp -d)"
    cp "$(command -v rg)" "$rgpkg/rg"
    mkdir -p "$RG_CACHE"
    tar czf "$RG_ASSET" -C "$rgpkg" rg
    rm -rf "$rgpkg"
  fi
  if ! npm_config_unsafe_perm=true npm_config_yes=true npm install --prefix "$CS_DIR" \
      --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION" >"$CS_DIR.install.log" 2>&1; then
    log "FAIL: npm install code-server@$CS_VERSION failed; last lines of $CS_DIR.install.log:"
    tail -n 60 "$CS_DIR.install.log" >&2
    exit 1
  fi
  touch "$CS_MARKER"
  if ! code_server_ok; then
    rm -f "$CS_MARKER"
    log "FAIL: code-server installed but '$CS_BIN --version' does not report $CS_VERSION:"
    "$CS_BIN" --version >&2 || true
    tail -n 30 "$CS_DIR.install.log" >&2
    exit 1
  fi
  log "code-server $CS_VERSION installed in $(($(date +%s) - start)) s: $CS_BIN"
fi
