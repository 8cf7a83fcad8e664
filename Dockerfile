# Build: docker build --build-arg VERSION=$(git describe --tags --always) -t mintlify_exporter .
# Run:   docker run -p 10491:10491 -e MINTLIFY_PROJECT_ID=... -e MINTLIFY_API_KEY=... mintlify_exporter

# Builder: the Go release the module is tested with.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG BRANCH=unknown
ARG BUILD_DATE=unknown
# Static binary; the version lands in mintlify_exporter_build_info and --version.
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w \
        -X github.com/prometheus/common/version.Version=${VERSION} \
        -X github.com/prometheus/common/version.Revision=${REVISION} \
        -X github.com/prometheus/common/version.Branch=${BRANCH} \
        -X github.com/prometheus/common/version.BuildUser=docker \
        -X github.com/prometheus/common/version.BuildDate=${BUILD_DATE}" \
      -o /out/mintlify_exporter .

# Runtime: distroless static (CA certificates, no shell), non-root user 65532.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG BUILD_DATE=unknown
LABEL org.opencontainers.image.title="mintlify_exporter" \
      org.opencontainers.image.description="Prometheus exporter for Mintlify documentation analytics and agent jobs" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/mintlify-exporter/mintlify_exporter" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${BUILD_DATE}"
COPY LICENSE NOTICE /
COPY --from=build /out/mintlify_exporter /bin/mintlify_exporter
USER 65532:65532
EXPOSE 10491
ENTRYPOINT ["/bin/mintlify_exporter"]
