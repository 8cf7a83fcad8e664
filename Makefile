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

# staticcheck release pinned for reproducible lint results.
STATICCHECK_VERSION ?= v0.7.0
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets and what each does.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_.-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

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

.PHONY: bench
bench: ## Run the Go benchmarks (-benchmem) and print the ratios.
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

.PHONY: demo
demo: build ## Run the exporter on the built-in simulated API (no account needed).
	./$(BINARY) --demo

.PHONY: clean
clean: ## Remove build output.
	rm -f $(BINARY)
