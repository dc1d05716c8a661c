#!/bin/sh
# Copies the built tree (what bin/encoderd needs at run time, nothing to build with) into DEST:
# package.json, bin/, dist/, web/, config/, docs/, the native addon and engine host, and production node_modules.
# Used by scripts/install-systemd.sh and scripts/build-image.sh. Build first: `npm run setup` (or npm start once).
#
# The addon and the native engine host: native/prebuilds/ when `npm run native:prebuild` made them (node-gyp-build and
# core/paths.ts pick the ones for the platform, so the same tree serves x64 and arm64), else the local build in
# native/build.
set -eu

usage() { echo "usage: $0 DEST" >&2; exit 2; }
[ $# -eq 1 ] || usage
DEST=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)

for f in dist/core/main.js dist/core/engine/host-main.js native/index.js; do
  [ -e "$ROOT/$f" ] || { echo "$0: $ROOT/$f is missing: build first (npm run setup)" >&2; exit 1; }
done
if [ ! -d "$ROOT/native/prebuilds" ] && [ ! -e "$ROOT/native/build/Release/encoderd.node" ]; then
  echo "$0: no native addon (native/prebuilds or native/build/Release/encoderd.node): build first" >&2
  exit 1
fi

if [ -d "$ROOT/native/prebuilds" ] && ! ls "$ROOT"/native/prebuilds/*/encoderd-host >/dev/null 2>&1; then
  echo "$0: native/prebuilds has no encoderd-host (made before the native engine host): npm run native:prebuild" >&2
  exit 1
fi

mkdir -p "$DEST/native"
cp -a "$ROOT/package.json" "$ROOT/package-lock.json" "$ROOT/README.md" "$ROOT/CHANGELOG.md" "$DEST/"
for d in bin dist web config docs; do
  rm -rf "${DEST:?}/$d"
  cp -a "$ROOT/$d" "$DEST/$d"
done
rm -f "$DEST/dist/.tsbuildinfo"
cp -a "$ROOT/native/index.js" "$ROOT/native/index.d.ts" "$DEST/native/"
rm -rf "$DEST/native/prebuilds" "$DEST/native/build"
if [ -d "$ROOT/native/prebuilds" ]; then
  cp -a "$ROOT/native/prebuilds" "$DEST/native/prebuilds"
else
  mkdir -p "$DEST/native/build/Release"
  cp -a "$ROOT/native/build/Release/encoderd.node" "$DEST/native/build/Release/"
  [ ! -e "$ROOT/native/build/encoderd-host" ] || cp -a "$ROOT/native/build/encoderd-host" "$DEST/native/build/"
fi
# The standalone GStreamer plugin, for receivers on the same machine (GST_PLUGIN_PATH=…/native/gst-plugins).
if [ -e "$ROOT/native/build/gst-plugins/libgstencoderd.so" ]; then
  mkdir -p "$DEST/native/gst-plugins"
  cp -a "$ROOT/native/build/gst-plugins/libgstencoderd.so" "$DEST/native/gst-plugins/"
fi

# Production dependencies from the installed node_modules, pruned offline: no registry needed, and the versions
# are exactly the tested ones (package-lock.json).
rm -rf "$DEST/node_modules"
cp -a "$ROOT/node_modules" "$DEST/node_modules"
(cd "$DEST" && npm prune --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
find "$DEST/node_modules" -mindepth 1 -type d -empty -delete
