# The two commands a newcomer needs: `make run` and `make test`. Each builds what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto')
GEN    := bezique/v1/.generated
ADDR   ?= 127.0.0.1:50051
NODE   := clients/node
NPM_OK := $(NODE)/node_modules/.package-lock.json
BUF    := $(NODE)/node_modules/.bin/buf

.PHONY: run test lint proto clean bench play soak venv typecheck

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py examples/highcard/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --config-settings editable_mode=compat -e '.[dev]' -e examples/highcard
	touch $@

$(GEN): $(STAMP) $(PROTOS) tools/gen_proto.py
	$(BIN)/python tools/gen_proto.py
	touch $@

proto: $(GEN)

# The pinned npm packages: the buf CLI, protoc-gen-es, TypeScript and the Node client's runtime.
$(NPM_OK): $(NODE)/package.json $(NODE)/package-lock.json
	cd $(NODE) && npm ci --no-audit --no-fund
	touch $@

run: $(GEN)
	$(BIN)/bezique-server --address $(ADDR)

lint: $(GEN) $(NPM_OK)
	$(BUF) lint
	$(BUF) breaking --against proto/baseline/bezique.v1.binpb
	cd $(NODE) && npm run --silent typecheck
	$(BIN)/ruff check .
	$(BIN)/mypy variants service clients tests examples/highcard/bezique_highcard bench tools

test: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

bench: $(GEN)
	$(BIN)/python -m bench

soak: $(GEN)
	$(BIN)/python tools/soak.py --seconds $(or $(SECONDS),180) --tables $(or $(TABLES),40) $(SOAK_ARGS)

play: $(GEN)
	$(BIN)/bezique play $(or $(VARIANT),bezique-2p)

clean:
	rm -rf $(VENV) bezique build dist *.egg-info $(NODE)/node_modules $(NODE)/dist $(NODE)/src/gen .mypy_cache .ruff_cache .pytest_cache .hypothesis data
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
