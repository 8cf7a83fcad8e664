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
DOCKER_IMAGE ?= mintlify_exporter:$(VERSION)

# Pinned tool versions, so lint results do not change under us.
STATICCHECK_VERSION     ?= v0.7.0
DOCKERFILELINT_VERSION  ?= 1.8.0
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck

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

.PHONY: demo
demo: build ## Run the exporter on the built-in simulated API (no account needed).
	./$(BINARY) --demo

.PHONY: docker
docker: ## Build the container image (needs a Docker engine).
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) \
	  --build-arg BRANCH=$(BRANCH) --build-arg BUILD_DATE=$(BUILD_DATE) -t $(DOCKER_IMAGE) .

.PHONY: clean
clean: ## Remove build and benchmark output.
	rm -f $(BINARY) bench.txt
