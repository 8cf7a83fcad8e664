#!/usr/bin/env bash
# Builds the container image of a release for linux/amd64 and linux/arm64
# from the release's binaries (make release-image, after make release),
# with buildah, and a manifest list holding both:
#
#   $RELEASE_IMAGE-amd64, $RELEASE_IMAGE-arm64   the images
#   $RELEASE_IMAGE                               the manifest list
#
# The Dockerfile is FROM scratch with no RUN step, so building for another
# architecture needs no emulation: buildah only copies files and records
# the architecture. Each architecture gets its own context under
# $RELEASE_DIR/image/<arch>, staged as make image-context stages
# .build/image/. make's RELEASE_IMAGE is the published name
# (ghcr.io/mintlify-exporter/mintlify_exporter:vVERSION), not make image's
# mintlify_exporter:VERSION, so the two targets run in either order. The
# release workflow pushes it with:
#   buildah manifest push --all $RELEASE_IMAGE docker://REGISTRY/mintlify_exporter:vVERSION
set -euo pipefail
cd "$(dirname "$0")/.."

: "${RELEASE_DIR:?}" "${RELEASE_IMAGE:?}" "${VERSION:?}" "${REVISION:=unknown}" "${CREATED:=unknown}"
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
IMAGE_UID=${IMAGE_UID:-65532}
ARCHES=${ARCHES:-amd64 arm64}

die() {
  printf 'release-image: %s\n' "$*" >&2
  exit 1
}
# Every architecture's binary before any build, so a release made for fewer
# platforms fails here, not after building half the images.
for arch in $ARCHES; do
  [ -x "$RELEASE_DIR/bin/linux-$arch/mintlify_exporter" ] ||
    die "no $RELEASE_DIR/bin/linux-$arch/mintlify_exporter: run make release with linux/$arch in RELEASE_PLATFORMS first (ARCHES=\"$ARCHES\")"
done

command -v buildah >/dev/null || die "buildah is missing (apt-get install buildah)"
[ -s "$CA_BUNDLE" ] || die "no CA bundle at $CA_BUNDLE (install ca-certificates or set CA_BUNDLE)"

# A name held by an image (not a manifest list) cannot take the list:
# say so before building rather than fail at the end.
if buildah inspect --type image "$RELEASE_IMAGE" >/dev/null 2>&1 && ! buildah manifest inspect "$RELEASE_IMAGE" >/dev/null 2>&1; then
  die "$RELEASE_IMAGE is already an image (make image's?): set RELEASE_IMAGE to another name, or remove it (buildah rmi $RELEASE_IMAGE)"
fi

images=()
for arch in $ARCHES; do
  bin="$RELEASE_DIR/bin/linux-$arch"
  ctx="$RELEASE_DIR/image/$arch"
  rm -rf "$ctx"
  mkdir -p "$ctx/.build/image"
  mkdir -p "$ctx/.build/image/rootfs/var/lib" "$ctx/.build/image/state"
  cp Dockerfile .dockerignore LICENSE NOTICE "$ctx/"
  cp "$bin/mintlify_exporter" "$ctx/.build/image/mintlify_exporter"
  cp -R "$bin/licenses" "$ctx/.build/image/licenses"
  cp "$CA_BUNDLE" "$ctx/.build/image/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' "$IMAGE_UID" "$IMAGE_UID" >"$ctx/.build/image/passwd"
  printf 'root:x:0:\nnonroot:x:%s:\n' "$IMAGE_UID" >"$ctx/.build/image/group"
  image="$RELEASE_IMAGE-$arch"
  buildah build --layers=false --os linux --arch "$arch" \
    --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" --build-arg CREATED="$CREATED" \
    -f "$ctx/Dockerfile" -t "$image" "$ctx" >&2 || die "buildah build for $arch failed"
  images+=("$image")
done

buildah manifest rm "$RELEASE_IMAGE" >/dev/null 2>&1 || true
buildah manifest create "$RELEASE_IMAGE" >/dev/null || die "buildah manifest create failed"
for image in "${images[@]}"; do
  # The image in local storage by its full name: buildah names an image
  # without a registry localhost/NAME.
  ref=$image
  case "$image" in
  */*) case "${image%%/*}" in *.* | *:* | localhost) ;; *) ref="localhost/$image" ;; esac ;;
  *) ref="localhost/$image" ;;
  esac
  buildah manifest add "$RELEASE_IMAGE" "containers-storage:$ref" >/dev/null ||
    die "buildah manifest add $image failed"
done
printf 'release-image: %s (manifest list of %s)\n' "$RELEASE_IMAGE" "${images[*]}" >&2
