#!/bin/sh
# Installs encoderd as a systemd service: the built tree in /opt/encoderd (deploy/stage-tree.sh), the unit
# deploy/systemd/encoderd.service in /etc/systemd/system, the system user encoderd, an example
# /etc/encoderd/encoderd.env, then enables and starts the unit. Build the tree first (`npm run setup`).
# Run as root. docs/operations.md ("systemd").
#
#   scripts/install-systemd.sh              install, enable, start
#   scripts/install-systemd.sh --dry-run    print every step, change nothing
#   DESTDIR=/tmp/root scripts/install-systemd.sh
#                                           files only, under DESTDIR (packaging, tests): no user, no systemctl
#   --no-start                              enable without starting
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/encoderd
DESTDIR=${DESTDIR:-}
DRY=0
START=1
for arg in "$@"; do
  case $arg in
    --dry-run) DRY=1 ;;
    --no-start) START=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "install-systemd: unknown argument $arg" >&2; exit 2 ;;
  esac
done

step() {
  echo "+ $*"
  [ "$DRY" = 1 ] || "$@"
}

if [ -z "$DESTDIR" ] && [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "install-systemd: run as root (or DESTDIR=… for files only, --dry-run to see the steps)" >&2
  exit 1
fi
# The unit runs /usr/bin/node: it must be Node 20 or later (Debian 12's own nodejs is 18).
if [ -z "$DESTDIR" ]; then
  major=$(/usr/bin/node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -lt 20 ]; then
    echo "install-systemd: /usr/bin/node must be Node 20 or later (found: $major)" >&2
    [ "$DRY" = 1 ] || exit 1
  fi
fi

# A fresh copy beside the old tree, then swapped in: a failed copy leaves the installed service as it was.
step mkdir -p "$DESTDIR$(dirname "$PREFIX")"
step rm -rf "$DESTDIR$PREFIX.new"
step "$ROOT/deploy/stage-tree.sh" "$DESTDIR$PREFIX.new"
step rm -rf "$DESTDIR$PREFIX.old"
if [ -e "$DESTDIR$PREFIX" ] || [ "$DRY" = 1 ]; then step mv "$DESTDIR$PREFIX" "$DESTDIR$PREFIX.old"; fi
step mv "$DESTDIR$PREFIX.new" "$DESTDIR$PREFIX"
step rm -rf "$DESTDIR$PREFIX.old"

step install -D -m 0644 "$ROOT/deploy/systemd/encoderd.service" "$DESTDIR/etc/systemd/system/encoderd.service"
if [ ! -e "$DESTDIR/etc/encoderd/encoderd.env" ]; then
  step install -D -m 0640 "$ROOT/deploy/systemd/encoderd.env" "$DESTDIR/etc/encoderd/encoderd.env"
fi

if [ -n "$DESTDIR" ]; then
  echo "files installed under $DESTDIR; on the target: create the user encoderd, systemctl daemon-reload, systemctl enable --now encoderd"
  exit 0
fi
if ! getent passwd encoderd >/dev/null; then
  step useradd --system --user-group --home-dir /var/lib/encoderd --no-create-home --shell /usr/sbin/nologin \
    --comment 'encoderd video encoder' encoderd
fi
step systemctl daemon-reload
if [ "$START" = 1 ]; then
  step systemctl enable --now encoderd.service
  echo "started; ready when 'systemctl is-active encoderd' says active (READY=1 is sent once /svc/healthz answers 200)"
else
  step systemctl enable encoderd.service
fi
