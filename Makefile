# oci-ccm. `make help` lists the targets. The two a newcomer runs: `make demo` and `make test`.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
BIN       := $(CURDIR)/bin
TOOLS     := $(BIN)/tools
BINARY    := $(BIN)/oci-cloud-controller-manager
CMD_PKG   := ./ccm/cmd/oci-cloud-controller-manager
# component-base insists on a semantic version: a v* tag, else v0.0.0-dev+<commit>. Expanded once
# (:=), so that one make run stamps the binary and tags the image alike even if a commit lands
# while it runs.
VERSION   ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || \
               echo v0.0.0-dev+$$(git rev-parse --short HEAD 2>/dev/null || echo unknown))
VERSION   := $(VERSION)
LDFLAGS   := -s -w -X k8s.io/component-base/version.gitVersion=$(VERSION) \
             -X k8s.io/component-base/version.gitCommit=$(shell git rev-parse HEAD 2>/dev/null || echo unknown)

# Pinned tool versions, installed from the module proxy into bin/tools.
STATICCHECK_VERSION := v0.8.2
STATICCHECK         := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)
# golang.org/x/exp has no tags: a pseudo-version pins apidiff.
APIDIFF_VERSION     := v0.0.0-20261113113407-e3970619a1a4
APIDIFF             := $(TOOLS)/apidiff-$(APIDIFF_VERSION)

# The public API of the last release (v0.2.0), as apidiff export data of the module. `make lint`
# fails on any incompatible change to a public package against it; `make api` records the
# current API in its place (see README.md, "API stability").
MODULE   := github.com/oci-ccm/oci-ccm
API_BASE := internal/apicheck/api.zip
# The incompatible changes made on purpose since that release, one apidiff line each, every one
# told in CHANGELOG.md's Unreleased section; `make api` records a new baseline and empties it.
API_BREAKS := internal/apicheck/breaks.txt

# Real-cluster end-to-end suite: kube-apiserver is built from a nested module and cached under
# $HOME/.cache; etcd comes from Debian's etcd-server package. KUBE_VERSION (e.g. 1.36) picks an
# older minor's module, internal/kubebins/v<minor>; empty is the newest, the one CI runs.
KUBEBINS     := $(CURDIR)/internal/kubebins
KUBE_VERSION ?=

# Container image (make image): built without a daemon by the nested module internal/image.
# The tag is the version with "+" (not allowed in tags) as "-". SOURCE_DATE_EPOCH (default: the
# commit's time) stamps the image and its files, so a commit always gives the same digest.
IMAGE_REPO        ?= ghcr.io/oci-ccm/oci-cloud-controller-manager
IMAGE_TAG         ?= $(subst +,-,$(VERSION))
IMAGE             ?= $(IMAGE_REPO):$(IMAGE_TAG)
IMAGE_DIR         := $(BIN)/image
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
SOURCE_DATE_EPOCH := $(SOURCE_DATE_EPOCH)

# Release (make release VERSION=vX.Y.Z): the artifacts of a version in bin/release (the image for
# every architecture below as one OCI image index, the deploy manifests pinned to its digest, the
# packaged chart, the IAM policy, SHA256SUMS); the binaries and the image's record in
# bin/release-work. No daemon, no network beyond the Go module proxy (internal/image/README.md).
RELEASE_DIR    := $(BIN)/release
RELEASE_WORK   := $(BIN)/release-work
RELEASE_ARCHES := amd64 arm64
# make release-test releases this version: VERSION is a dev version outside a tag, which a
# release refuses.
RELEASE_TEST_VERSION := v0.0.0-releasetest

# Test packages are everything except the e2e suite, which only builds with -tags e2e.
UNIT_FLAGS ?= -race -count=1
BENCH_PKGS ?= ./lb/... ./seclist/... ./instances/... ./ociclient/...

.PHONY: help
help: ## List targets.
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build bin/oci-cloud-controller-manager, version stamped, static and reproducible.
	@$(call require,$(CMD_PKG),the CCM binary)
	$(call build-ccm,$$($(GO) env GOARCH),$(BINARY))

.PHONY: test
test: unit thirdparty chart-test image-test release-test e2e ## Every test: unit, integration, third-party module, chart, image, release, real-cluster e2e.

.PHONY: unit
unit: ## Fast loop: go test -race over every package (no real cluster).
	$(GO) test $(UNIT_FLAGS) ./...
	@# internal/bench's big-cluster tests run the upstream service controller, whose own data
	@# race (see bigcluster_test.go) the race detector would report: they run here without it.
	$(GO) test -count=1 ./internal/bench/

.PHONY: thirdparty
# Its go.sum follows the root's requirements: after a dependency change in go.mod, run
# `cd examples/thirdparty && go mod tidy` and commit both.
thirdparty: ## Run examples/thirdparty, a separate module using only the public API (fails if its re-plan is not empty).
	cd examples/thirdparty && $(GO) run .

.PHONY: e2e
e2e: build ## End-to-end: the built binary against real etcd + kube-apiserver and ocitest; KUBE_VERSION=1.36 for an older one.
	@$(call require,./internal/e2e,the e2e suite)
	etcd="$$($(KUBEBINS)/ensure-etcd.sh | tail -n1)"; \
	apiserver="$$(KUBE_VERSION='$(KUBE_VERSION)' $(KUBEBINS)/build-kube-apiserver.sh | tail -n1)"; \
	kubectl="$$($(KUBEBINS)/build-kube-apiserver.sh kubectl | tail -n1)"; \
	PATH="$$(dirname "$$kubectl"):$$PATH" OCI_CCM_ETCD="$$etcd" KUBE_APISERVER="$$apiserver" OCI_CCM_BINARY="$(BINARY)" \
	$(GO) test -tags e2e -count=1 -timeout 40m ./internal/testcluster/... ./internal/e2e/... ./ccm/preflight/ ./ccm/binding/... ./examples/localcluster/ && \
	OCI_CCM_ETCD="$$etcd" KUBE_APISERVER="$$apiserver" \
	$(GO) test -tags e2e -count=1 -timeout 10m -run 'RealCluster' ./ccm/

.PHONY: chart-test
chart-test: ## Render the Helm chart (examples/helm) against golden files; RBAC equals examples/deploy's.
	cd examples/helm/test && $(GO) test -count=1 -skip '^TestRelease' .

.PHONY: chart-golden
chart-golden: ## Rewrite the chart's golden files after an intended change (then read the diff).
	cd examples/helm/test && $(GO) test -count=1 -skip '^TestRelease' . -update

.PHONY: image
image: build ## Build the container image into bin/image (OCI layout + tarball), no daemon; reproducible.
	@mkdir -p $(IMAGE_DIR)
	cp $(BINARY) $(IMAGE_DIR)/oci-cloud-controller-manager
	ca="$$(internal/image/ensure-ca-bundle.sh | tail -n1)"; \
	cd internal/image && $(GO) run . -binary $(IMAGE_DIR)/oci-cloud-controller-manager -ca-bundle "$$ca" \
	  -arch "$$($(GO) env GOARCH)" -created $(SOURCE_DATE_EPOCH) -version $(VERSION) -ref $(IMAGE) \
	  -layout $(IMAGE_DIR)/oci -tarball $(IMAGE_DIR)/oci-cloud-controller-manager.tar -record $(IMAGE_DIR)/record.json

.PHONY: image-test
image-test: image ## Unpack the image, run its binary, and rebuild it to the same digest.
	cd internal/image && OCI_CCM_IMAGE_RECORD=$(IMAGE_DIR)/record.json $(GO) test -count=1 -skip '^TestRelease' .

.PHONY: release
release: ## Release VERSION=vX.Y.Z into bin/release: multi-arch image (OCI layout), pinned manifests, chart, IAM policy, SHA256SUMS.
	@$(GO) run ./internal/release -check -version '$(VERSION)'
	@$(call require,$(CMD_PKG),the CCM binary)
	rm -rf $(RELEASE_DIR) $(RELEASE_WORK)
	mkdir -p $(RELEASE_DIR) $(RELEASE_WORK)
	for arch in $(RELEASE_ARCHES); do \
	  $(call build-ccm,$$arch,$(RELEASE_WORK)/linux-$$arch/oci-cloud-controller-manager); done
	ca="$$(internal/image/ensure-ca-bundle.sh | tail -n1)"; \
	cd internal/image && $(GO) run . -ca-bundle "$$ca" -created $(SOURCE_DATE_EPOCH) -version $(VERSION) \
	  $(foreach a,$(RELEASE_ARCHES),-platform $(a)=$(RELEASE_WORK)/linux-$(a)/oci-cloud-controller-manager) \
	  -ref $(IMAGE_REPO):$(VERSION) -layout $(RELEASE_DIR)/image -record $(RELEASE_WORK)/image.json
	$(call release-files,$(RELEASE_DIR),$(VERSION))

.PHONY: release-test
release-test: ## Release v0.0.0-releasetest; check the index's platforms and binaries, the pinned manifests, the chart, and rebuilds.
	$(MAKE) --no-print-directory release VERSION=$(RELEASE_TEST_VERSION)
	cd internal/image && OCI_CCM_RELEASE_RECORD=$(RELEASE_WORK)/image.json OCI_CCM_RELEASE_DIR=$(RELEASE_DIR) \
	  $(GO) test -count=1 -run '^TestRelease' .
	cd examples/helm/test && OCI_CCM_RELEASE_VERSION=$(RELEASE_TEST_VERSION) \
	  OCI_CCM_RELEASE_CHART=$(RELEASE_DIR)/oci-ccm-$(RELEASE_TEST_VERSION:v%=%).tgz $(GO) test -count=1 -run '^TestRelease' .
	@# The files made after the image, made again from the same inputs, have the same checksums.
	rm -rf $(RELEASE_WORK)/again && mkdir -p $(RELEASE_WORK)/again && cp -R $(RELEASE_DIR)/image $(RELEASE_WORK)/again/
	$(call release-files,$(RELEASE_WORK)/again,$(RELEASE_TEST_VERSION))
	diff -u $(RELEASE_DIR)/SHA256SUMS $(RELEASE_WORK)/again/SHA256SUMS

.PHONY: kube-apiserver
kube-apiserver: ## Build (or reuse from ~/.cache/oci-ccm) kube-apiserver v1.37.2 for the e2e suite; KUBE_VERSION=1.36 for v1.36.3.
	KUBE_VERSION='$(KUBE_VERSION)' $(KUBEBINS)/build-kube-apiserver.sh

.PHONY: bench
bench: ## Benchmarks: OCI calls, polls and time per scenario at OCI's real durations (internal/bench/RESULTS.md).
	{ echo '# `make bench` results'; echo; \
	  echo 'Generated by `make bench` (internal/bench) on ocitest with queued work requests, a 100x clock (the storm and the big cluster: see there).'; echo; \
	  echo 'What is scaled: the single-Service scenarios run at 100x; the storm'"'"'s restart at real time and its node phase at 3x; the big cluster at real time but its rolling replacement at 3x (see there);'; \
	  echo 'the storm runs with 10 workers only (its one-worker run, at real time, adds five minutes: `go run ./internal/bench/cmd/bench -storm-only -storm-syncs 1`).'; echo; \
	  echo 'Charts, drawn by the same run: [the storm'"'"'s work requests over time](storm.svg), [a Service'"'"'s calls per scenario](calls.svg), [the big cluster'"'"'s writes per phase](bigcluster.svg).'; echo; \
	  $(GO) run ./internal/bench/cmd/bench -storm-mode All -storm-syncs 10 -charts internal/bench || exit 1; echo; \
	  echo; echo '### Go benchmarks'; echo; echo '```'; \
	  $(GO) test -run '^$$' -bench . -benchmem -count=1 ./internal/bench/ | grep -E '^Benchmark' || exit 1; echo '```'; \
	  echo; echo 'BenchmarkSignedGetLoadBalancer'"'"'s cpu-s/1000calls is the CPU of 1,000 signed calls (reads of a load balancer of 512 backends), ocitest'"'"'s answer included.'; \
	  echo 'Before the signing key was parsed once (3450686^) and after (3450686 and later), the same benchmark, five runs of 1,000 calls each, taken in turn'; \
	  echo 'on 2026-12-07 under a 1-minute load of 12 to 19 from other work: median 3.3 s before, 3.1 s after (runs 2.9 to 5.2 s). Parsing the key once'; \
	  echo 'saved about 7%, not half: a CPU profile of the benchmark puts 36% of a call in RSA-2048 signing (a private-key operation per request,'; \
	  echo 'about 1 ms) and 39% in the SDK decoding the JSON response, neither in this project'"'"'s code.'; \
	} > internal/bench/RESULTS.md.tmp && mv internal/bench/RESULTS.md.tmp internal/bench/RESULTS.md
	cat internal/bench/RESULTS.md
	$(GO) test -run '^$$' -bench . -benchmem -count=1 $(BENCH_PKGS)

# The demo is built, then run, so that the wait for the build is announced and shows progress:
# a first build compiles some 870 packages (a minute or more on 2 cores). go build -v names each
# package it builds; awk counts those lines (one word, no colon) and passes the rest (module
# downloads, errors) through, and says the build is done only when nothing but downloads came.
# On a terminal one line shows the count and the package; elsewhere (CI logs) a line every 50
# packages. A failed build fails the target (pipefail, .SHELLFLAGS).
.PHONY: demo
demo: ## The CCM reconciling example Services against an in-memory OCI (no setup needed).
	@$(call require,./examples/demo,the demo)
	@echo "make demo: building the demo (a first run compiles for a minute or more; later runs start in seconds)…"
	@mkdir -p $(BIN)
	@tty=0; if [ -t 1 ]; then tty=1; fi; \
	$(GO) build -v -o $(BIN)/demo ./examples/demo 2>&1 | awk -v tty=$$tty '\
	  /^[^ :]+$$/ { n++; \
	    if (tty) { printf "\r\033[K  package %d: %s", n, $$0; live = 1 } \
	    else if (n % 50 == 0) printf "  %d packages compiled…\n", n; \
	    fflush(); next } \
	  { if (live) { printf "\n"; live = 0 } if (!/^go: downloading /) failed = 1; print; fflush() } \
	  END { if (live) printf "\r\033[K"; \
	    if (n > 0 && !failed) printf "  %d package%s compiled; starting the demo.\n", n, (n == 1 ? "" : "s") }'
	@$(BIN)/demo

.PHONY: generate
generate: ## Regenerate generated files (lb/README.md annotations, lb/COMPATIBILITY.md, ccm/docs metrics, Events, IAM policy).
	$(GO) generate ./...

.PHONY: lint
lint: $(STATICCHECK) ## gofmt, go vet, staticcheck, generated files, license headers, shellcheck, YAML, links.
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^internal/kubebins/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./internal/... ./ccm/... ./examples/...
	cd internal/image && $(GO) vet . && $(STATICCHECK) .
	cd examples/helm/test && $(GO) vet . && $(STATICCHECK) .
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags e2e ./internal/e2e/... ./internal/testcluster/... ./ccm/... ./examples/...
	$(GO) run ./internal/docgen -check
	$(GO) run ./internal/compat -check -out lb/COMPATIBILITY.md -guide ccm/MIGRATION.md -data internal/compatdata/compatibility.json
	internal/lint/license.sh check
	internal/lint/shellcheck.sh
	$(GO) run ./internal/lint/yamlcheck
	$(GO) run ./internal/lint/links

# lint also checks API compatibility (kept out of lint's own recipe line).
lint: apicheck

.PHONY: apicheck
apicheck: $(APIDIFF) ## Fail on an incompatible change to the public API since the last release.
	@out=$$($(APIDIFF) -m -incompatible $(API_BASE) $(MODULE) 2>/dev/null) || { echo "apidiff failed"; exit 1; }; \
	  out=$$(printf '%s\n' "$$out" | grep -vxF -f $(API_BREAKS) || true); \
	  if [ -n "$$out" ]; then \
	    echo "Incompatible API changes against $(API_BASE):"; echo "$$out"; \
	    echo "If intended (allowed before v1 in a minor release, see README.md), add the lines to $(API_BREAKS) and note them in CHANGELOG.md."; \
	    exit 1; fi; \
	  echo "apicheck: no incompatible API change against $(API_BASE)"

.PHONY: api
api: $(APIDIFF) ## Record the current public API as the baseline make lint checks against (at a release).
	$(APIDIFF) -m -w $(API_BASE) $(MODULE)
	: > $(API_BREAKS)

$(APIDIFF):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install golang.org/x/exp/cmd/apidiff@$(APIDIFF_VERSION)
	mv $(TOOLS)/apidiff $@

.PHONY: license
license: ## Add the Apache-2.0 SPDX header to every Go file that lacks it.
	internal/lint/license.sh fix

$(STATICCHECK):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(TOOLS)/staticcheck $@

.PHONY: clean
clean: ## Remove bin/ (the kube-apiserver cache in $HOME/.cache stays).
	rm -rf $(BIN)

# build-ccm builds the CCM binary for linux/$(1) into $(2): static, with -trimpath and an empty
# build ID so it does not depend on the checkout's path. One way for everything (e2e, the image,
# the release): these flags have their own cache keys (the first build compiles the binary's
# packages once per architecture).
build-ccm = CGO_ENABLED=0 GOOS=linux GOARCH=$(1) $(GO) build -trimpath -buildvcs=false \
  -ldflags "$(LDFLAGS) -buildid=" -o $(2) $(CMD_PKG)

# release-files writes into $(1), beside the image layout $(1)/image of version $(2), the
# release's other files and then SHA256SUMS over them all.
define release-files
$(GO) run ./internal/docgen -policy $(1)/iam-policy.txt
$(GO) run ./internal/release -version $(2) -out $(1) -image-repo $(IMAGE_REPO) -created $(SOURCE_DATE_EPOCH)
endef

# require fails with a clear message when a target's package does not exist yet.
define require
if [ ! -d "$(1)" ]; then echo "make: $(2) ($(1)) is not built yet; see the open issues." >&2; exit 1; fi
endef
