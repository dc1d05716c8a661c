#!/usr/bin/env bash
# Builds the encoderd container image with no registry: a Debian 12 slim root file system made by mmdebstrap from the
# Debian archive, `podman import`ed as the base, then deploy/container/Containerfile on top with the built tree.
# Then a smoke run: the container becomes healthy (its own HEALTHCHECK), a pipeline test://ball → H.264 → .ts plays,
# the file decodes (ffprobe), `podman stop` ends it with exit 0. Prints the figures docs/operations.md records.
# Takes minutes: not part of `npm test`. Build the tree first (`npm run setup`).
#
#   scripts/build-image.sh                 build and smoke-run with podman
#   scripts/build-image.sh --chroot-check  no podman: the same root file system (base + run-time packages + tree)
#                                          as a directory, the service run in it with unshare + chroot, same smoke
#   options: --tag NAME (default localhost/encoderd:<version>), --work DIR (default /tmp/encoderd-image),
#            --no-smoke; DEBIAN_MIRROR=http://… replaces http://deb.debian.org
#   PODMAN_BUILD_ARGS, PODMAN_RUN_ARGS: extra podman flags for hosts that need them (docs/operations.md says which
#   this project's sandbox needs: hybrid cgroups and no CAP_SYS_RESOURCE)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(node -p "require('$ROOT/package.json').version")
TAG=localhost/encoderd:$VERSION
BASE_TAG=localhost/encoderd-base:bookworm-slim
WORK=/tmp/encoderd-image
MODE=podman
SMOKE=1
while [ $# -gt 0 ]; do
  case $1 in
    --tag) TAG=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --chroot-check) MODE=chroot; shift ;;
    --no-smoke) SMOKE=0; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org}
SOURCES=("deb $MIRROR/debian bookworm main" "deb $MIRROR/debian bookworm-updates main"
  "deb $MIRROR/debian-security bookworm-security main")
# What makes debian:bookworm-slim slim: no documentation, manual pages or translations (copyright files stay).
SLIM=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias'
  --dpkgopt='path-exclude=/usr/share/groff/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
  --aptopt='APT::Install-Recommends "false"')

log() { printf '[build-image] %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null || { log "needs $1: apt-get install $2"; exit 1; }; }
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }

need mmdebstrap mmdebstrap
need ffprobe ffmpeg
need curl curl
[ "$MODE" = podman ] && need podman podman
mkdir -p "$WORK"

# The context podman builds from (or the tree copied into the chroot): Containerfile, package list, Node, tree.
CONTEXT=$WORK/context
rm -rf "$CONTEXT"
mkdir -p "$CONTEXT"
cp "$ROOT/deploy/container/Containerfile" "$ROOT/deploy/container/runtime-packages.txt" "$CONTEXT/"
cp "$(readlink -f "$(command -v node)")" "$CONTEXT/node"
log "staging the built tree"
"$ROOT/deploy/stage-tree.sh" "$CONTEXT/encoderd"
PACKAGES=$(grep -v '^#' "$ROOT/deploy/container/runtime-packages.txt" | paste -sd, -)

if [ "$MODE" = podman ]; then
  log "base: mmdebstrap minbase bookworm (slim) → $WORK/base.tar"
  mmdebstrap --variant=minbase --format=tar "${SLIM[@]}" bookworm "$WORK/base.tar" "${SOURCES[@]}"
  log "podman import → $BASE_TAG"
  podman import --change 'CMD ["/bin/bash"]' "$WORK/base.tar" "$BASE_TAG" >/dev/null
  log "podman build → $TAG"
  # shellcheck disable=SC2086
  podman build ${PODMAN_BUILD_ARGS:-} --format docker --network host --build-arg "BASE=$BASE_TAG" -t "$TAG" -f "$CONTEXT/Containerfile" "$CONTEXT"
  size=$(podman image inspect --format '{{.Size}}' "$TAG")
  log "image $TAG: $((size / 1000000)) MB, built in $(elapsed)"
else
  ROOTFS=$WORK/rootfs
  log "root file system: mmdebstrap minbase bookworm (slim) + run-time packages → $ROOTFS"
  rm -rf "$ROOTFS"
  mmdebstrap --variant=minbase --include="$PACKAGES" "${SLIM[@]}" bookworm "$ROOTFS" "${SOURCES[@]}"
  # What the Containerfile does after its apt-get install.
  cp "$CONTEXT/node" "$ROOTFS/usr/local/bin/node"
  chroot "$ROOTFS" sh -c 'groupadd --system --gid 10001 encoderd && useradd --system --uid 10001 --gid encoderd --groups video,audio --home-dir /data --no-create-home --shell /usr/sbin/nologin encoderd && mkdir -p /data && chown encoderd:encoderd /data && chmod 0700 /data'
  cp -a "$CONTEXT/encoderd" "$ROOTFS/opt/encoderd"
  rm -rf "$ROOTFS/var/lib/apt/lists/"* "$ROOTFS/var/cache/apt/"*.bin
  log "root file system: $(du -sm "$ROOTFS" | cut -f1) MB, made in $(elapsed)"
fi
[ "$SMOKE" = 1 ] || exit 0

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
api() { curl -sk --max-time 10 -X "$1" "https://127.0.0.1:$PORT$2" "${@:3}"; }
NAME=encoderd-smoke-$$
OUT=$WORK/smoke.ts
rm -f "$OUT"
if [ "$MODE" = podman ]; then
  podman rm -f "$NAME" >/dev/null 2>&1 || true
  # Host network: the smoke run needs no port mapping (operators use -p 3539:3539 -p 8443:8443 -p 8554:8554).
  # shellcheck disable=SC2086
  podman run ${PODMAN_RUN_ARGS:-} -d --name "$NAME" --network host -e ENCODERD_PORT="$PORT" -e ENCODERD_WEB_PORT=0 -e ENCODERD_HOST=127.0.0.1 "$TAG" >/dev/null
  healthy() { podman healthcheck run "$NAME" >/dev/null 2>&1; }
  stop_service() { podman stop -t 60 "$NAME" >/dev/null; code=$(podman inspect --format '{{.State.ExitCode}}' "$NAME"); }
  fetch_output() { podman cp "$NAME:/data/smoke.ts" "$OUT"; }
  cleanup() { podman logs "$NAME" >"$WORK/smoke.log" 2>&1 || true; podman rm -f "$NAME" >/dev/null 2>&1 || true; }
else
  # A mount and PID namespace of its own (unshare), the root file system as / (chroot), the service user, the
  # host's network: as the container would run, minus podman.
  unshare --mount --pid --fork --kill-child sh -c '
    R=$1; shift
    mount -t proc proc "$R/proc"; mount --rbind /dev "$R/dev"; mount --rbind /sys "$R/sys"
    mount -t tmpfs tmpfs "$R/tmp"; mount -t tmpfs tmpfs "$R/run"
    exec chroot --userspec=encoderd:encoderd "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/data \
      ENCODERD_DATA_DIR=/data XDG_CACHE_HOME=/tmp/encoderd-cache NODE_ENV=production "$@"
  ' sh "$ROOTFS" node /opt/encoderd/bin/encoderd --port "$PORT" --web-port 0 --host 127.0.0.1 >"$WORK/smoke.log" 2>&1 &
  PID=$!
  healthy() { [ "$(api GET /svc/healthz -o /dev/null -w '%{http_code}')" = 200 ]; }
  # The service is unshare's child (sh, chroot and env exec into it): SIGTERM to it, as podman stop would send.
  stop_service() { kill -TERM "$(pgrep -P "$PID")"; code=0; wait "$PID" || code=$?; }
  fetch_output() { cp "$ROOTFS/data/smoke.ts" "$OUT"; }
  cleanup() { kill -KILL "$PID" 2>/dev/null || true; }
fi
trap cleanup EXIT

started=$(date +%s)
for _ in $(seq 1 90); do healthy && break; sleep 1; done
healthy || { log "never healthy"; exit 1; }
log "healthy $(( $(date +%s) - started ))s after the start"
api POST /svc/pipeline -H 'content-type: application/json' -o /dev/null -w '%{http_code}\n' -d '{
  "id": "smoke", "mode": "simple", "source": {"uri": "test://ball"},
  "encoding": {"codec": "h264", "bitrate": 800, "width": 640, "height": 360, "fps": 30},
  "output": {"uri": "/data/smoke.ts"}}' >&2
api PUT /svc/pipeline/smoke/play -o /dev/null -w '%{http_code}\n' >&2 || true
sleep 5
state=$(api GET /svc/pipeline/smoke | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);console.log(p.state+' '+JSON.stringify(p.stats?.output??p.stats??{}))})")
log "pipeline after 5 s: $state"
api PUT /svc/pipeline/smoke/stop -o /dev/null -w '%{http_code}\n' >&2
fetch_output
stop_service
log "exit code after SIGTERM: $code"
# An MPEG-TS lists its streams twice (programs and streams): the first line is the video stream.
probe=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 "$OUT" | head -n1)
log "output $(stat -c %s "$OUT") bytes; ffprobe: $probe"
log "done in $(elapsed)"
[ "$code" = 0 ] && [[ $probe == h264,640,360,* ]]
