# The two commands a newcomer needs: `make run` and `make test`. Each builds what it needs.
#
# Two virtual environments, so that the server never runs next to the test tools:
#   .venv-run  `make run` and `make play`: the engine (with its postgres extra, for replicas) and
#              the example plugin with their runtime dependencies only (`pip install -e .`
#              generates bezique.v1 itself, in pip's isolated build environment, so protoc is
#              not needed here either);
#   .venv      `make test`, `lint`, `bench`, `soak`: the same plus the `dev` extra.
# One environment cannot do both: whichever target ran first would leave its packages behind.
PYTHON   ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
RUN_VENV := .venv-run
RUN_BIN  := $(RUN_VENV)/bin
RUN_STAMP := $(RUN_VENV)/.installed
PROTOS   := $(shell find proto -name '*.proto')
GEN      := bezique/v1/.generated
# Empty by default: bezique-server then reads BEZIQUE_SERVER (the name the bezique CLI reads
# too; BEZIQUE_ADDRESS, deprecated, still works and wins), else listens on 127.0.0.1:50051.
# `make run ADDR=0.0.0.0:50051` passes --address, which wins over the variable.
ADDR     ?=
# The HTTP port for browsers (Connect, gRPC-Web, the web table at /); `make run HTTP_ADDR=`
# turns it off.
HTTP_ADDR ?= 127.0.0.1:8080
NODE     := clients/node
NPM_OK   := $(NODE)/node_modules/.package-lock.json
BUF      := $(NODE)/node_modules/.bin/buf
# The web table (clients/web): its pinned npm packages and its bundle in dist/, served at / on
# the HTTP port. The browser tests build it themselves when it is missing or stale.
WEB      := clients/web
WEB_NPM_OK := $(WEB)/node_modules/.package-lock.json
WEB_DIST := $(WEB)/dist/index.html
WEB_SRC  := $(shell find $(WEB)/src $(WEB)/static $(NODE)/src/fair -type f -not -path '*/src/gen/*' 2>/dev/null) \
            $(WEB)/build.mjs $(WEB)/buf.gen.yaml $(WEB)/tsconfig.json

.PHONY: run test lint proto clean bench play soak failover venv venv-run typecheck flaky dist web

venv: $(STAMP)

# The server's environment alone (`make run` and `make play` create it too).
venv-run: $(RUN_STAMP)

$(STAMP): pyproject.toml setup.py examples/highcard/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --config-settings editable_mode=compat -e '.[dev]' -e examples/highcard
	touch $@

$(RUN_STAMP): pyproject.toml setup.py examples/highcard/pyproject.toml $(PROTOS)
	test -x $(RUN_BIN)/python || $(PYTHON) -m venv $(RUN_VENV)
	$(RUN_BIN)/python -m pip install --quiet --upgrade pip
	$(RUN_BIN)/python -m pip install --quiet --config-settings editable_mode=compat -e '.[postgres]' -e examples/highcard
	touch $@

$(GEN): $(STAMP) $(PROTOS) tools/gen_proto.py
	$(BIN)/python tools/gen_proto.py
	touch $@

proto: $(GEN)

# The pinned npm packages: the buf CLI, protoc-gen-es, TypeScript and the Node client's runtime.
$(NPM_OK): $(NODE)/package.json $(NODE)/package-lock.json
	cd $(NODE) && npm ci --no-audit --no-fund
	touch $@

$(WEB_NPM_OK): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

$(WEB_DIST): $(WEB_NPM_OK) $(WEB_SRC) $(PROTOS)
	cd $(WEB) && npm run --silent build

# `make web` builds the web table; `make run` and `make bench` build it when npm is there (the
# server still runs without it, and says so at /).
web: $(WEB_DIST)

run bench: web-if-npm
.PHONY: web-if-npm
web-if-npm:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory web; \
	else echo "npm not found: the web table (clients/web) is not built"; fi

run: $(RUN_STAMP)
	$(RUN_BIN)/bezique-server $(if $(ADDR),--address $(ADDR)) $(if $(HTTP_ADDR),--http-address $(HTTP_ADDR)) $(RUN_ARGS)

lint: $(GEN) $(NPM_OK)
	$(BUF) lint
	$(BUF) breaking --against proto/baseline/bezique.v1.binpb
	cd $(NODE) && npm run --silent typecheck
	$(BIN)/ruff check .
	$(BIN)/mypy bezique tests examples/highcard/bezique_highcard examples/highcard/tests examples/platform/bezique_platform bench tools

# The suite runs on TEST_WORKERS processes (pytest-xdist; 0 runs it in one process), a file's
# tests on one worker (its module's servers start once). What the tests build in the checkout
# (clients/node, the web bundle) is built under a lock, once a run (tests/npm.py).
TEST_WORKERS ?= 2
XDIST = -n $(TEST_WORKERS) --dist loadfile

test: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) --durations=25 $(PYTEST_ARGS)

# `make flaky` (not part of `make test`): the whole suite COUNT times in a row on a loaded
# machine, a CPU hog (HOGS of them; 0 for none) spinning beside each run and killed after it,
# never outliving HOG_SECONDS. Every run goes to the end; the failed ones are named at the end.
COUNT      ?= 20
HOGS       ?= 1
HOG_SECONDS ?= 900
flaky: lint
	@failed=""; i=0; \
	while [ $$i -lt $(COUNT) ]; do \
	  i=$$((i + 1)); hogs=""; n=0; \
	  while [ $$n -lt $(HOGS) ]; do \
	    n=$$((n + 1)); timeout $(HOG_SECONDS) sh -c 'while :; do :; done' & hogs="$$hogs $$!"; \
	  done; \
	  echo "== flaky: run $$i of $(COUNT), $(HOGS) CPU hog(s) beside it"; \
	  $(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) -rf $(PYTEST_ARGS) || failed="$$failed $$i"; \
	  [ -z "$$hogs" ] || kill $$hogs 2>/dev/null; wait; \
	done; \
	if [ -n "$$failed" ]; then echo "== flaky: runs that failed:$$failed (of $(COUNT))"; exit 1; fi; \
	echo "== flaky: $(COUNT) runs, 0 failures"

# The wheel and the sdist into dist/ (runtime dependencies only; extras `postgres` and `dev`).
# `python -m build` builds the sdist, then the wheel from the unpacked sdist, each in an
# isolated environment; the sdist step's egg-info is removed from the checkout afterwards.
# The wheel ships the web table's bundle (package data bezique/clients/web/dist), built first
# when npm is there; without npm the wheel has no web table (its server says so at /).
dist: $(STAMP) web-if-npm
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	rm -rf bezique_engine.egg-info

bench: $(GEN)
	$(BIN)/python -m bench

soak: $(GEN)
	$(BIN)/python tools/soak.py --seconds $(or $(SECONDS),180) --tables $(or $(TABLES),40) $(SOAK_ARGS)
	$(MAKE) --no-print-directory failover

# The failover test (tests/replicas/test_failover.py, 40 s to 2 minutes; `make soak` and .ci/run
# run it, `make test` does not): a pg_auto_failover formation (tools/pgcluster.py formation),
# two replicas, tables in play, the primary SIGKILLed; it prints the outage it saw.
failover: $(GEN)
	BEZIQUE_FAILOVER=1 $(BIN)/python -m pytest -q -p no:cacheprovider -s -rs tests/replicas/test_failover.py

play: $(RUN_STAMP)
	$(RUN_BIN)/bezique play $(or $(VARIANT),bezique-2p)

clean:
	rm -rf $(VENV) $(RUN_VENV) bezique/v1 build dist *.egg-info examples/*/*.egg-info examples/*/build $(NODE)/node_modules $(NODE)/dist $(NODE)/src/gen $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen bench/peers/node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis data
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
