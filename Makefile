# mintlify_exporter — run `make help` for the list of targets.

GO          ?= go
BINARY      ?= mintlify_exporter
PKG         := github.com/prometheus/common/version
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
REVISION    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BRANCH      ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
BUILD_USER  ?= $(shell id -un 2>/dev/null || echo unknown)@$(shell hostname 2>/dev/null || echo unknown)
BUILD_DATE  ?= $(shell date -u +%Y%m%d-%H:%M:%S)
LDFLAGS     := -s -w \
	-X $(PKG).Version=$(VERSION) \
	-X $(PKG).Revision=$(REVISION) \
	-X $(PKG).Branch=$(BRANCH) \
	-X $(PKG).BuildUser=$(BUILD_USER) \
	-X $(PKG).BuildDate=$(BUILD_DATE)
# Container image: `make image` (buildah) or `make docker` (Docker engine).
IMAGE        ?= mintlify_exporter:$(VERSION)
DOCKER_IMAGE ?= $(IMAGE)
# CA bundle copied into the image (Debian's ca-certificates by default).
CA_BUNDLE    ?= /etc/ssl/certs/ca-certificates.crt
# The image's non-root user; the Dockerfile's USER and deploy/ use it too.
IMAGE_UID    := 65532
IMAGE_CREATED ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
IMAGE_ARGS   = --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) \
	--build-arg CREATED=$(IMAGE_CREATED)

# Pinned tool versions, so lint results do not change under us.
STATICCHECK_VERSION     ?= v0.7.0
DOCKERFILELINT_VERSION  ?= 1.8.0
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck

# `make demo`: the address it listens on (loopback only by default; e.g.
# DEMO_LISTEN=:10491 for every interface) and extra flags, e.g.
# ARGS='--collector.visitors --log.level=debug'.
DEMO_LISTEN ?= 127.0.0.1:10491
ARGS        ?=

# Seconds each fuzz target runs in `make fuzz`.
FUZZTIME    ?= 5s

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets and what each does.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_.-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build ./mintlify_exporter with the version from git stamped in.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BINARY) .

.PHONY: test
test: ## Run every unit and integration test with the race detector.
	$(GO) test -race -count=1 ./...

.PHONY: lint
lint: $(STATICCHECK) ## gofmt check, go vet and staticcheck.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: lint-docker
lint-docker: ## Lint the Dockerfile with dockerfilelint (from npm, pinned).
	npx --yes dockerfilelint@$(DOCKERFILELINT_VERSION) Dockerfile

.PHONY: bench
bench: ## Run the Go benchmarks three times (-benchmem); ratios are the x_* columns.
	$(GO) test -run '^$$' -bench . -benchmem -count=3 -timeout 30m ./... | tee bench.txt

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 5s).
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for fn in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$fn"; $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

.PHONY: e2e
e2e: ## End to end: exporter, Prometheus and Alertmanager on 127.0.0.1 (installs Debian packages if missing).
	bash e2e/run.sh

.PHONY: e2e-image
e2e-image: ## Build the image with buildah and run it with podman --demo (installs Debian packages if missing).
	bash e2e/image.sh

.PHONY: demo
demo: build ## Run the exporter on the built-in simulated API on DEMO_LISTEN (127.0.0.1:10491); extra flags in ARGS.
	@mkdir -p .demo && : >.demo/jobs.txt
	./$(BINARY) --demo --web.listen-address=$(DEMO_LISTEN) --mintlify.tracked-jobs-file=.demo/jobs.txt $(ARGS)

.PHONY: image-context
image-context: build ## Stage what the Dockerfile copies under .build/image/ (binary, CA bundle, passwd, licenses).
	@test "$$(uname -s)" = Linux || { echo "image-context: the image needs a linux binary; run it on Linux"; exit 1; }
	@test -s $(CA_BUNDLE) || { echo "image-context: no CA bundle at $(CA_BUNDLE) (install ca-certificates or set CA_BUNDLE)"; exit 1; }
	rm -rf .build/image
	mkdir -p .build/image/licenses
	cp $(BINARY) .build/image/mintlify_exporter
	cp $(CA_BUNDLE) .build/image/ca-certificates.crt
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:$(IMAGE_UID):$(IMAGE_UID):nonroot:/home/nonroot:/sbin/nologin\n' >.build/image/passwd
	printf 'root:x:0:\nnonroot:x:$(IMAGE_UID):\n' >.build/image/group
	@# The license and NOTICE files of every module built into the binary.
	@$(GO) list -deps -f '{{with .Module}}{{if .Version}}{{.Path}} {{.Dir}}{{end}}{{end}}' . | sort -u | \
	while read -r mod dir; do \
	  mkdir -p ".build/image/licenses/$$mod"; \
	  found=; for f in "$$dir"/LICENSE* "$$dir"/COPYING* "$$dir"/NOTICE*; do \
	    [ -f "$$f" ] && cp "$$f" ".build/image/licenses/$$mod/" && found=1; \
	  done; \
	  [ -n "$$found" ] || { echo "image-context: no license file in $$mod"; exit 1; }; \
	done

.PHONY: image
image: image-context ## Build the container image $(IMAGE) with buildah (FROM scratch: no registry needed).
	buildah build --layers=false $(IMAGE_ARGS) -f Dockerfile -t $(IMAGE) .

.PHONY: docker
docker: image-context ## Build the container image $(DOCKER_IMAGE) with a Docker engine.
	docker build $(IMAGE_ARGS) -t $(DOCKER_IMAGE) .

.PHONY: clean
clean: ## Remove build and benchmark output.
	rm -rf $(BINARY) bench.txt .build .demo
