# ledger-node build, run and test entry points. `make run` and `make test` are the two commands a
# newcomer needs; everything they depend on is installed from here.

GO        ?= go
DATA_DIR  ?= data/development
FUZZTIME  ?= 10s
ARGS      ?=
PKGS      := ./...

.PHONY: all build run test test-long vet fmt-check generate check-generate interop-deps coverage-deps browser-deps bench fuzz clean

all: build

# -buildvcs=auto: the binaries record the commit they were built from (ledger-node version shows
# it), also where GOFLAGS turns that off.
build:
	$(GO) build -buildvcs=auto -o bin/ledger-node ./cmd/ledger-node
	$(GO) build -buildvcs=auto -o bin/pact ./cmd/pact

# A development network node that mines all 20 chains, with its database under $(DATA_DIR).
# Extra flags: make run ARGS="--block-delay 2s --service-port 0".
run: build
	./bin/ledger-node --network development --data-dir $(DATA_DIR) $(ARGS)

# Everything CI checks: formatting, vet, generated code up to date, then the whole test suite.
# The explorer's browser test must run when a browser is there (LEDGER_NODE_REQUIRE_BROWSER), the
# interoperability tests when their npm packages are (LEDGER_NODE_REQUIRE_INTEROP); where an
# install was impossible they skip and say so. Tests wait for events, never for a speed, with
# hang guards of minutes (internal/hangguard); TEST_TIMEOUT is go test's per package, far above
# the slowest package's time on a loaded 2-core machine (bench/RESULTS.md, "Tests under load").
TEST_TIMEOUT ?= 30m
test: fmt-check vet check-generate interop-deps coverage-deps browser-deps
	LEDGER_NODE_REQUIRE_BROWSER=$$(command -v chromium >/dev/null 2>&1 && echo 1) \
	LEDGER_NODE_REQUIRE_INTEROP=$$(test -f $(INTEROP_STAMP) && echo 1) \
	$(GO) test -count=1 -race -timeout $(TEST_TIMEOUT) $(PKGS)

# The npm packages of the interoperability tests (interop/: @kadena/client, @kadena/client-utils
# and @kadena/cryptography-utils at the versions package-lock.json pins), from the npm registry.
# `npm ci` runs when node_modules is missing or older than the lock file. Without npm, or when
# npm ci fails (no registry), the interop tests skip and say so.
INTEROP_STAMP := interop/node_modules/.package-lock.json
interop-deps:
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm is not installed: the interop tests will skip"; \
	elif [ ! -f $(INTEROP_STAMP) ] || [ interop/package-lock.json -nt $(INTEROP_STAMP) ]; then \
		cd interop && { npm ci --no-audit --no-fund || { sleep 5; npm ci --no-audit --no-fund; }; } || \
		{ rm -rf node_modules; echo "npm ci failed: the interop tests will skip"; }; \
	fi

# genhtml (Debian's lcov), with which a test of pact/repl checks `pact -c`'s LCOV output. Installed
# with apt-get when missing and apt-get can install (as root, or through sudo); otherwise that test
# skips and says so.
coverage-deps:
	@if command -v genhtml >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "apt-get is not available: the genhtml check of coverage reports will skip"; \
	else \
		if [ "$$(id -u)" = 0 ]; then sudo=; \
		elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
		else echo "not root and no sudo: the genhtml check of coverage reports will skip"; exit 0; fi; \
		{ $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends lcov >/dev/null 2>&1 || \
		  { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends lcov >/dev/null 2>&1; }; } || \
		echo "installing lcov failed: the genhtml check of coverage reports will skip"; \
	fi

# Debian's chromium, which the explorer page's browser test drives headless (chromedp). Installed
# with apt-get when missing and apt-get can install (as root, or through sudo); otherwise that
# test skips and says so.
browser-deps:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "apt-get is not available: the explorer's browser test will skip"; \
	else \
		if [ "$$(id -u)" = 0 ]; then sudo=; \
		elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
		else echo "not root and no sudo: the explorer's browser test will skip"; exit 0; fi; \
		echo "installing Debian's chromium for the explorer's browser test"; \
		{ $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || \
		  { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; } || \
		echo "installing chromium failed: the explorer's browser test will skip"; \
	fi

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# msgp record code is generated and committed; `go build` never regenerates it.
generate:
	$(GO) generate ./...

check-generate: generate
	@changed=$$(git status --porcelain -- ':(glob)**/*_gen.go' ':(glob)**/*_gen_test.go'); \
	if [ -n "$$changed" ]; then echo "generated code is stale; run make generate and commit:"; echo "$$changed"; exit 1; fi

# The tests that run for minutes and so stay out of `make test` (LEDGER_NODE_LONG_TESTS): on-demand
# mining of 3,000 blocks a chain without proof of work, about 12 minutes (issue 37).
test-long:
	LEDGER_NODE_LONG_TESTS=1 $(GO) test -count=1 -timeout 40m -run 'TestOnDemandMakes3000BlocksPerChain' ./cmd/ledger-node/

# Benchmarks: go test -bench everywhere, then the ratio harnesses whose output goes to bench/RESULTS.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	$(GO) run ./bench/headercheck
	$(GO) run ./bench/hashrate
	$(GO) run ./bench/pacteval
	$(GO) run ./bench/pactserver -batch 10
	$(GO) run ./bench/pactserver -batch 1

# Each fuzz target for FUZZTIME (default 10s).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf bin coverage interop/node_modules
