# The image follows the Prometheus exporters' convention: `make build`
# compiles the static, version-stamped binary and this file only copies it
# onto the base. The base is `scratch`, so building needs no registry; the
# CA bundle (for https://api.mintlify.com) and the passwd entry of the
# non-root user come from the build context, staged under .build/image/ by
# `make image` (buildah) or `make docker`.
#
# Build: make image                     (or: make docker)
# Run:   podman run -p 10491:10491 -e MINTLIFY_PROJECT_ID=... -e MINTLIFY_API_KEY=... mintlify_exporter:VERSION
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
USER 65532:65532
EXPOSE 10491
ENTRYPOINT ["/bin/mintlify_exporter"]
