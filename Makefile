# The two commands a newcomer needs: `make run` and `make test`. Each builds what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto')
GEN    := bezique/v1/.generated
ADDR   ?= 127.0.0.1:50051

.PHONY: run test lint proto clean bench play soak venv typecheck flaky

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

run: $(GEN)
	$(BIN)/bezique-server --address $(ADDR)

lint: $(GEN)
	$(BIN)/ruff check .
	$(BIN)/mypy variants service clients tests examples/highcard/bezique_highcard bench tools

test: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

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
	  $(BIN)/python -m pytest -q -p no:cacheprovider -rf $(PYTEST_ARGS) || failed="$$failed $$i"; \
	  [ -z "$$hogs" ] || kill $$hogs 2>/dev/null; wait; \
	done; \
	if [ -n "$$failed" ]; then echo "== flaky: runs that failed:$$failed (of $(COUNT))"; exit 1; fi; \
	echo "== flaky: $(COUNT) runs, 0 failures"

bench: $(GEN)
	$(BIN)/python -m bench

soak: $(GEN)
	$(BIN)/python tools/soak.py --seconds $(or $(SECONDS),180) --tables $(or $(TABLES),40) $(SOAK_ARGS)

play: $(GEN)
	$(BIN)/bezique play $(or $(VARIANT),bezique-2p)

clean:
	rm -rf $(VENV) bezique build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis data
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
