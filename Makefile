# Every target sets itself up from nothing: a virtual environment in .venv with mt installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORPUS := data/spa-eng.tsv
SHARED_CORPUS := ../shared/data/spa-eng.tsv
BUDGET ?= 60m
RECIPE ?= default
DEMO_BUDGET ?= 8m

.PHONY: setup test lint demo bench bench-train bench-translate bench-arch corpus clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# The corpus: data/spa-eng.tsv, else a copy of ../shared/data/spa-eng.tsv, else `mt download`.
corpus: $(STAMP)
	@if [ -f $(CORPUS) ]; then echo "corpus: $(CORPUS)"; \
	elif [ -f $(SHARED_CORPUS) ]; then cp $(SHARED_CORPUS) $(CORPUS) && echo "corpus: copied $(SHARED_CORPUS)"; \
	else $(BIN)/mt download --out $(CORPUS); fi

demo: corpus
	$(BIN)/mt prepare $(CORPUS) --out runs/demo-data --force
	$(BIN)/mt train runs/demo-data --out runs/demo --time-budget $(DEMO_BUDGET) --force
	$(BIN)/mt translate runs/demo "Where is the train station?" "I don't like coffee." "Tom is reading a book in the garden."
	$(BIN)/mt evaluate runs/demo --limit 2000

bench: corpus
	$(BIN)/python benchmarks/bench.py --corpus $(CORPUS) --budget $(BUDGET) --recipe $(RECIPE)

bench-train: corpus
	$(BIN)/python benchmarks/bench_train.py --corpus $(CORPUS)

bench-translate: corpus
	$(BIN)/python benchmarks/bench_translate.py --corpus $(CORPUS)

bench-arch: corpus
	$(BIN)/python benchmarks/bench_arch.py --corpus $(CORPUS)

clean:
	rm -rf $(VENV) runs bench .pytest_cache .ruff_cache
