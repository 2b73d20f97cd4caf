#!/usr/bin/env bash
# Builds a small replay test image offline, in about a second: a busybox rootfs plus the host's
# bash and tmux with the shared libraries they load (ldd) and the terminfo entries tmux needs,
# imported with `docker import` and labelled so the tests' cleanup can find it.
# Usage: image.sh NAME:TAG LABEL=VALUE [WORKDIR]
set -euo pipefail
TAG="$1"; LABEL="$2"; WORKDIR="${3:-/}"
ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,usr/bin,lib,lib64,etc,tmp,root,app,usr/share,var/tmp}
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"
BB="$(command -v busybox)"
cp "$BB" "$ROOT/bin/busybox"
for a in $("$BB" --list); do [[ -e "$ROOT/bin/$a" ]] || ln -s busybox "$ROOT/bin/$a"; done
copy_with_libs() {
  local bin="$1" dest="$2"
  cp "$bin" "$ROOT$dest"
  for lib in $(ldd "$bin" | grep -o '/[^ ]*' ); do
    mkdir -p "$ROOT$(dirname "$lib")"
    cp -L "$lib" "$ROOT$lib"
  done
}
copy_with_libs "$(command -v bash)" /bin/bash
rm -f "$ROOT/bin/sh"; ln -s bash "$ROOT/bin/sh"
if command -v tmux >/dev/null; then copy_with_libs "$(command -v tmux)" /usr/bin/tmux; fi
for t in /lib/terminfo /usr/share/terminfo /usr/lib/locale/C.utf8; do
  if [[ -d "$t" ]]; then mkdir -p "$ROOT$t"; cp -a "$t/." "$ROOT$t/"; fi
done
# /ro: owned by nobody, not writable; root cannot write there without CAP_DAC_OVERRIDE (dropped).
mkdir -p "$ROOT/ro" && chmod 555 "$ROOT/ro" && chown 65534:65534 "$ROOT/ro"
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$ROOT/etc/group"
tar -C "$ROOT" -c . | docker import --change "LABEL $LABEL" --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/sh"]' --change "WORKDIR $WORKDIR" - "$TAG" >/dev/null
echo "$TAG"
