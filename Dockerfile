# The image follows the Prometheus exporters' convention: `make build`
# compiles the static, version-stamped binary and this file only copies it
# onto the base. The base is `scratch`, so building needs no registry; the
# CA bundle (for https://api.mintlify.com) and the passwd entry of the
# non-root user come from the build context, staged under .build/image/ by
# `make image` (buildah) or `make docker`.
#
# The state file and its ledger (what makes a restart cost no request) go
# to /var/lib/mintlify_exporter, a volume owned by the image's user:
# STATE_DIRECTORY sets --storage.path's default there, as systemd's
# StateDirectory= does for the unit; --storage.path still overrides it.
#
# Build: make image                     (or: make docker)
# Run:   podman run -p 10491:10491 -v mintlify-state:/var/lib/mintlify_exporter \
#          -e MINTLIFY_PROJECT_ID=... -e MINTLIFY_API_KEY=... mintlify_exporter:VERSION
#        podman run -p 10491:10491 mintlify_exporter:VERSION --demo

FROM scratch
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="mintlify_exporter" \
      org.opencontainers.image.description="Prometheus exporter for Mintlify documentation analytics and agent jobs" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/mintlify-exporter/mintlify_exporter" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
COPY .build/image/passwd .build/image/group /etc/
COPY .build/image/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY .build/image/licenses /licenses
COPY LICENSE NOTICE /
COPY .build/image/mintlify_exporter /bin/mintlify_exporter
# /var/lib as root's, then the state directory in it as the user's.
COPY .build/image/rootfs/ /
COPY --chown=65532:65532 .build/image/state/ /var/lib/mintlify_exporter/
ENV STATE_DIRECTORY=/var/lib/mintlify_exporter
VOLUME ["/var/lib/mintlify_exporter"]
USER 65532:65532
EXPOSE 10491
ENTRYPOINT ["/bin/mintlify_exporter"]
