# mintlify_exporter — run `make help` for the list of targets.

GO          ?= go
BINARY      ?= mintlify_exporter
PKG         := github.com/prometheus/common/version
# The version of every artifact (binary, archives, packages, image, chart)
# is the VERSION file's, checked by packaging/version.sh; the commit is the
# REVISION. See docs/development.md#cutting-a-release.
VERSION     := $(shell sh packaging/version.sh)
$(if $(VERSION),,$(error packaging/version.sh printed no version: see the VERSION file))
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
# Container image: `make image` (buildah) or `make docker` (Docker engine)
# builds IMAGE, for local use. A release's image (make release-image,
# .github/workflows/release.yml) is PUBLISHED_IMAGE:vVERSION, the Helm
# chart's default: ghcr.io/<the Go module's owner>/mintlify_exporter.
IMAGE        ?= mintlify_exporter:$(VERSION)
PUBLISHED_IMAGE := ghcr.io/mintlify-exporter/mintlify_exporter
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
GOCYCLO_VERSION         ?= v0.6.0
DOCKERFILELINT_VERSION  ?= 1.8.0
ACTIONLINT_VERSION      ?= v1.7.12
DEADCODE_VERSION        ?= v0.39.0
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck
GOCYCLO     := $(GOBIN)/gocyclo
ACTIONLINT  := $(GOBIN)/actionlint
DEADCODE    := $(GOBIN)/deadcode

# `make demo`: the address it listens on (loopback only by default; e.g.
# DEMO_LISTEN=:10491 for every interface) and extra flags, e.g.
# ARGS='--collector.visitors --log.level=debug'.
DEMO_LISTEN ?= 127.0.0.1:10491
ARGS        ?=
# The demo's receiver (docs/loop.md, "Try the loop in the demo"): it acts
# on the simulated API the exporter serves under /-/demo/api on
# DEMO_LISTEN's port, with the demo's public key.
DEMO_RECEIVER_LISTEN ?= 127.0.0.1:10492
DEMO_API_URL         ?= http://127.0.0.1:$(lastword $(subst :, ,$(DEMO_LISTEN)))/-/demo/api

# How long each fuzz target runs in `make fuzz`: a count of inputs (10000x),
# not a duration. With a duration, Go 1.26's fuzzing coordinator may fail a
# target with "context deadline exceeded" as the time ends, having found
# nothing (go.dev/issue/75804, fixed in Go 1.27); a count sets no deadline.
# 10000 inputs take 1 to 12 s a target on two cores.
FUZZTIME    ?= 10000x

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets and what each does.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_.-]+:.*## / {printf "  %-22s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build ./mintlify_exporter with the version of the VERSION file and the commit stamped in.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BINARY) .

# go test's own deadline per package binary. The slowest packages run
# 1-2 minutes each under -race on an idle 2-core machine and took over 10
# (go's default) when other builds loaded it; the deadline only catches a
# hang.
TEST_TIMEOUT ?= 45m

# The race runtime sleeps a second before a binary exits (GORACE's
# atexit_sleep_ms, default 1000, for races of goroutines still running
# then). Every test binary paid it, and every helper process a test runs
# from one: some 40 s of the suite's run time, spent asleep. The packages
# that start long-lived goroutines (engine, exporter, mintlify, serve)
# fail on one left running, so the sleep has little to find. A GORACE of
# your own comes after and wins.
TEST_GORACE := atexit_sleep_ms=0

# go test runs packages two at a time on two cores, in the order given:
# the longest first, so that no long package starts last and runs alone.
TEST_FIRST := ./internal/engine ./internal/cmd/serve ./dashboards ./internal/cmd/backfill

.PHONY: test
test: ## Every unit and integration test with the race detector, the chart checks (with helm) and the image check (with buildah, podman, runc); names skipped tool checks.
	@# The chart checks and the image check run beside go test (they
	@# wait on helm, buildah and podman more than they compute); their
	@# output is kept in a file each and printed after go test's.
	@skips=$$(mktemp); logs=$$(mktemp -d); bg=""; missing=0; \
	trap 'rm -rf "$$skips" "$$logs"' EXIT; \
	trap 'kill $$bg 2>/dev/null; wait; exit 130' INT TERM; \
	if command -v $(HELM) >/dev/null 2>&1; then \
	  (cd $(CHARTCHECK) && export MINTLIFY_TOOL_SKIPS="$$skips" HELM_KUBE_VERSION=$(HELM_KUBE_VERSION) && exec $(GO) test -count=1 ./...) >"$$logs/chart" 2>&1 & chart=$$!; bg="$$bg $$chart"; \
	elif [ "$$CI" = true ]; then \
	  echo "helm not found; CI must install it (go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)) for the Helm chart checks"; missing=1; \
	else \
	  echo "chartcheck: helm not installed (go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)), so skipped: the Helm chart checks (make test-chart)" >>"$$skips"; \
	fi; \
	if command -v buildah >/dev/null 2>&1 && command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1; then \
	  bash e2e/image.sh >"$$logs/image" 2>&1 & image=$$!; bg="$$bg $$image"; \
	elif [ "$$CI" = true ]; then \
	  echo "buildah, podman or runc not found; CI must install them for the image check (e2e/image.sh)"; missing=1; \
	else \
	  echo "e2e/image.sh: buildah, podman and runc not all installed, so skipped: the image check (make e2e-image)" >>"$$skips"; \
	fi; \
	echo "GORACE=\"$(TEST_GORACE)$${GORACE:+ $$GORACE}\" $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(TEST_FIRST) ./..."; \
	GORACE="$(TEST_GORACE)$${GORACE:+ $$GORACE}" MINTLIFY_TOOL_SKIPS="$$skips" $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(TEST_FIRST) ./...; rc=$$?; \
	[ "$$missing" = 0 ] || rc=1; \
	if [ -n "$${chart:-}" ]; then \
	  wait "$$chart" || rc=1; \
	  echo "(cd $(CHARTCHECK) && HELM_KUBE_VERSION=$(HELM_KUBE_VERSION) $(GO) test -count=1 ./...)"; cat "$$logs/chart"; \
	fi; \
	if [ -n "$${image:-}" ]; then \
	  wait "$$image" || rc=1; \
	  echo "bash e2e/image.sh"; cat "$$logs/image"; \
	fi; \
	if [ -s "$$skips" ]; then \
	  echo "SKIPPED tool checks (install the tools; CI=true makes this a failure): $$(paste -sd'|' "$$skips" | sed 's/|/ | /g')"; \
	fi; \
	exit $$rc

# The Helm chart's checks live in a module of their own (deploy/helm/
# chartcheck), so that the Kubernetes API types stay out of the exporter's.
# Every helm call there renders and lints with --kube-version
# HELM_KUBE_VERSION: a helm built by `go install` has no version stamped in
# and assumes Kubernetes v1.20, which the chart (>= 1.25) refuses.
HELM         ?= helm
HELM_VERSION ?= v3.22.0
HELM_KUBE_VERSION ?= 1.31.0
CHARTCHECK   := deploy/helm/chartcheck

.PHONY: test-chart
test-chart: ## Lint and render the Helm chart with every ci/*-values.yaml and check the objects (needs helm).
	cd $(CHARTCHECK) && HELM_KUBE_VERSION=$(HELM_KUBE_VERSION) $(GO) test -count=1 ./...

# `make test-under-load`: RUNS runs of LOAD_CMD (default `make test`) while
# LOAD_BURNERS CPU-bound processes run beside them, each bounded to
# LOAD_SECONDS; prints every run's duration and stops the burners on exit.
# LOAD_CMD='GORACE=$(TEST_GORACE) $(GO) test -race -count=3 ./...' is the race variant
# (also `make test-race-under-load`).
RUNS         ?= 10
LOAD_BURNERS ?= 4
LOAD_SECONDS ?= 3600
LOAD_CMD     ?= $(MAKE) --no-print-directory test

.PHONY: test-under-load
test-under-load: ## Run `make test` RUNS times (default 10) beside LOAD_BURNERS (4) CPU burners; prints each run's time.
	@set -u; pids=""; \
	stop() { for p in $$pids; do kill $$p 2>/dev/null || true; done; wait 2>/dev/null || true; }; \
	trap stop EXIT; trap 'exit 130' INT TERM; \
	if command -v stress-ng >/dev/null 2>&1; then \
	  timeout $(LOAD_SECONDS) stress-ng --quiet --cpu $(LOAD_BURNERS) --timeout $(LOAD_SECONDS)s >/dev/null 2>&1 & pids="$$!"; \
	  echo "load: stress-ng --cpu $(LOAD_BURNERS) for at most $(LOAD_SECONDS) s"; \
	else \
	  for i in $$(seq $(LOAD_BURNERS)); do timeout $(LOAD_SECONDS) sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	  echo "load: $(LOAD_BURNERS) shell busy-loops for at most $(LOAD_SECONDS) s"; \
	fi; \
	pass=0; fail=0; \
	for i in $$(seq $(RUNS)); do \
	  start=$$(date +%s); \
	  if $(LOAD_CMD) >test-under-load.$$i.log 2>&1; then r=PASS; pass=$$((pass+1)); rm -f test-under-load.$$i.log; \
	  else r=FAIL; fail=$$((fail+1)); fi; \
	  echo "run $$i/$(RUNS): $$r in $$(( $$(date +%s) - start )) s (load $$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?))$$( [ $$r = FAIL ] && echo ", output in test-under-load.$$i.log")"; \
	done; \
	echo "test-under-load: $$pass passed, $$fail failed of $(RUNS)"; \
	[ $$fail -eq 0 ]

.PHONY: test-race-under-load
test-race-under-load: ## `go test -race -count=3 ./...` RUNS times (default 1 here) under the same load.
	@$(MAKE) --no-print-directory test-under-load RUNS=$(or $(RACE_RUNS),1) LOAD_CMD='GORACE=$(TEST_GORACE) $(GO) test -race -count=3 ./...'

.PHONY: lint
# The shell scripts: the checks, the release scripts, the packages'
# maintainer scripts and CI's entry point.
SHELL_SCRIPTS := $(wildcard e2e/*.sh packaging/*.sh) packaging/deb/postinst packaging/deb/postrm \
  packaging/deb/prerm packaging/rpm/post packaging/rpm/postun packaging/rpm/preun .ci/run

# Test-support packages are reachable from tests only, so deadcode leaves them out.
DEADCODE_SKIP := internal/(testkit|leakcheck|manualclock|toolcheck|cmd/serve/servetest)/

lint: $(STATICCHECK) $(GOCYCLO) $(ACTIONLINT) $(DEADCODE) ## gofmt check, go vet, staticcheck, no non-test function over cyclomatic complexity 20, no dead code, shellcheck, actionlint.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@out=$$($(GOCYCLO) -over 20 $$(git ls-files '*.go' 2>/dev/null | grep -v '_test\.go$$' || find . -name '*.go' ! -name '*_test.go')); \
	if [ -n "$$out" ]; then echo "gocyclo: functions over complexity 20 (split them into named steps):"; echo "$$out"; exit 1; fi
	@all=$$($(DEADCODE) ./...) || exit 1; out=$$(echo "$$all" | grep -Ev '^$(DEADCODE_SKIP)' || true); \
	if [ -n "$$out" ]; then echo "deadcode: unreachable functions (delete them, or move test-only ones to a _test.go file):"; echo "$$out"; exit 1; fi
	@if command -v shellcheck >/dev/null 2>&1; then \
	  shellcheck -x -S warning $(SHELL_SCRIPTS) && echo "shellcheck: $(words $(SHELL_SCRIPTS)) scripts clean"; \
	elif [ "$$CI" = true ]; then echo "shellcheck is not installed; CI needs it"; exit 1; \
	else echo "SKIPPED shellcheck (install it; CI=true makes this a failure)"; fi
	@# The GitHub workflows (actionlint also runs shellcheck on their run: steps).
	$(ACTIONLINT) .github/workflows/*.yml

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(DEADCODE):
	$(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)

$(GOCYCLO):
	$(GO) install github.com/fzipp/gocyclo/cmd/gocyclo@$(GOCYCLO_VERSION)

$(ACTIONLINT):
	$(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

.PHONY: lint-docker
lint-docker: ## Lint the Dockerfile with dockerfilelint (from npm, pinned).
	npx --yes dockerfilelint@$(DOCKERFILELINT_VERSION) Dockerfile

.PHONY: bench
bench: ## Run the Go benchmarks three times (-benchmem); ratios are the x_* columns.
	$(GO) test -run '^$$' -bench . -benchmem -count=3 -timeout 30m ./... | tee bench.txt

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME inputs (default 10000x).
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for fn in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$fn"; $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

.PHONY: e2e
e2e: ## End to end: exporter, Prometheus and Alertmanager on 127.0.0.1 (installs Debian packages if missing).
	bash e2e/run.sh

.PHONY: e2e-image
e2e-image: ## Build the image with buildah; run it with podman in demo mode, then with a key and a state volume, restarted (installs Debian packages if missing).
	bash e2e/image.sh

.PHONY: demo
demo: build ## Run the exporter on the built-in simulated API on DEMO_LISTEN (127.0.0.1:10491), and the receiver acting on it on DEMO_RECEIVER_LISTEN (127.0.0.1:10492); extra exporter flags in ARGS.
	@mkdir -p .demo && : >.demo/jobs.txt && rm -f .demo/receiver-state.json .demo/receiver-audit.jsonl* && echo mint-demo-receiver-token >.demo/receiver.token
	@# The receiver in the background, stopped when the exporter stops (an
	@# asynchronous command of a shell without job control ignores Ctrl-C).
	MINTLIFY_API_KEY=mint_demo_public_key ./$(BINARY) receiver --web.listen-address=$(DEMO_RECEIVER_LISTEN) \
	  --config.file=dashboards/demo/routes.yml --receiver.act --mintlify.api-url=$(DEMO_API_URL) \
	  --storage.path=.demo/receiver-state.json --receiver.bearer-token-file=.demo/receiver.token \
	  --receiver.tracked-jobs-file=.demo/jobs.txt --receiver.follow-interval=30s & receiver=$$!; \
	trap 'kill $$receiver 2>/dev/null; wait $$receiver' EXIT INT TERM; \
	./$(BINARY) --demo --web.listen-address=$(DEMO_LISTEN) --mintlify.tracked-jobs-file=.demo/jobs.txt $(ARGS)

.PHONY: image-context
image-context: build ## Stage what the Dockerfile copies under .build/image/ (binary, CA bundle, passwd, licenses).
	@test "$$(uname -s)" = Linux || { echo "image-context: the image needs a linux binary; run it on Linux"; exit 1; }
	@test -s $(CA_BUNDLE) || { echo "image-context: no CA bundle at $(CA_BUNDLE) (install ca-certificates or set CA_BUNDLE)"; exit 1; }
	rm -rf .build/image
	mkdir -p .build/image/licenses
	@# /var/lib (root's) and the state directory (empty; the Dockerfile gives it to IMAGE_UID).
	mkdir -p .build/image/rootfs/var/lib .build/image/state
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

# `make release`: archives, deb and rpm packages and sha256sums.txt in
# RELEASE_DIR, stamped with RELEASE_VERSION: VERSION, the VERSION file's.
# See docs/deployment.md#release-archives.
RELEASE_VERSION   ?= $(VERSION)
RELEASE_DIR       ?= .build/release
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 linux/armv7 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# Not IMAGE: make image and make release-image work in either order.
RELEASE_IMAGE     ?= $(PUBLISHED_IMAGE):v$(RELEASE_VERSION)
NFPM_VERSION      ?= v2.45.2
NFPM              := $(GOBIN)/nfpm

.PHONY: release
release: $(NFPM) ## Build release archives (linux, darwin, windows), deb and rpm packages and sha256sums.txt into RELEASE_DIR.
	@$(MAKE) --no-print-directory release-files VERSION='$(RELEASE_VERSION)'

# The binaries of a release get make build's ldflags with the release version.
.PHONY: release-files
release-files:
	GO='$(GO)' VERSION='$(VERSION)' LDFLAGS='$(LDFLAGS)' OUT='$(RELEASE_DIR)' \
	  PLATFORMS='$(RELEASE_PLATFORMS)' NFPM='$(NFPM)' bash packaging/release.sh

.PHONY: release-image
release-image: ## Build RELEASE_IMAGE for linux/amd64 and linux/arm64 from the release binaries, and its manifest list (buildah).
	RELEASE_DIR='$(RELEASE_DIR)' RELEASE_IMAGE='$(RELEASE_IMAGE)' VERSION='$(RELEASE_VERSION)' \
	  REVISION='$(REVISION)' CREATED='$(IMAGE_CREATED)' bash packaging/image.sh

.PHONY: release-check
release-check: ## Build a snapshot release and check it: checksums, archive contents, --version and --demo from the linux archive.
	bash packaging/release-check.sh

.PHONY: package-test
package-test: ## As root: check the deb and rpm (contents, lintian, systemd-analyze), install, run, remove and purge the deb.
	bash packaging/package-test.sh

$(NFPM):
	$(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)

.PHONY: clean
clean: ## Remove build and benchmark output.
	rm -rf $(BINARY) bench.txt .build .demo test-under-load.*.log
