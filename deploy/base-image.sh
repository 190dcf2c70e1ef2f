#!/bin/sh
# Make deploy/Dockerfile's base image from Debian packages, for a machine that reaches
# Debian's archive but no container registry (tests/deploy/test_container.py does this).
#   deploy/base-image.sh [IMAGE]        (root; needs debootstrap and podman)
# IMAGE defaults to the Dockerfile's FROM (python:3.11-slim-<release>); the Debian
# release is the tag's last word, and its python3 must be the tag's version. The result
# is imported under IMAGE's full name (docker.io/library/...), so `podman build` and
# `buildah bud` use it as they would the registry's image and the Dockerfile stays the
# one users build. Like the official image: Python on PATH as `python` and `python3` in
# /usr/local/bin, venv and pip (ensurepip), ca-certificates, useradd, no compiler.
set -eu
cd "$(dirname "$0")/.."
image=${1:-$(sed -n 's/^FROM \([^ ]*\).*/\1/p' deploy/Dockerfile | head -n 1)}
tag=${image##*:}                      # 3.11-slim-bookworm
release=${tag##*-}                    # bookworm
version=${tag%%-*}                    # 3.11
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case "$image" in */*) full=$image ;; *) full=docker.io/library/$image ;; esac

rootfs=$(mktemp -d /var/tmp/rollhouse-base.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  "$release" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || { cat "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
if [ ! -x "$rootfs/usr/bin/python$version" ]; then
  echo "Debian $release has no python$version for $image" >&2
  exit 1
fi
ln -s "/usr/bin/python$version" "$rootfs/usr/local/bin/python3"
ln -s python3 "$rootfs/usr/local/bin/python"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
tar -C "$rootfs" --numeric-owner -c . | podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change "ENV PYTHON_VERSION=$version" \
  --change 'CMD ["python3"]' \
  --message "debootstrap $release ($mirror) with python$version" \
  - "$full" >/dev/null
echo "$full"
