# The book's two commands:
#   make book   set up, fetch and verify the reports, execute the chapters, render the book
#   make test   set up where missing, then run the whole test suite
# Other targets: make setup | data | lint | test-fast | preview | bench | clean
#
# Variables you may set:
#   PYTHON=python3.11            the Python that creates the virtual environment
#   DDRSEARCH_MIRROR=DIR         fetch the PDFs from a local folder instead of downloading
#   TORCH_INDEX=URL              pip index for PyTorch, e.g. https://download.pytorch.org/whl/cpu
#                                on a Linux machine without a GPU (saves a multi-GB CUDA download)
#   PG_SCALES=1,10,100           archive multiples of make bench's PostgreSQL benchmark (default 1,10,100,1000)

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ddrsearch-installed
TORCH_VERSION ?= 2.13.0
TORCH_INDEX ?=
# Archive multiples of the PostgreSQL benchmark (make bench PG_SCALES=1,10,100 to leave out 1000x)
PG_SCALES ?= 1,10,100,1000
# matplotlib's font list and config in the project's own cache, so a font cache another program
# wrote into ~/.cache/matplotlib (e.g. listing only the system's fonts) cannot change a chapter's figures
export MPLCONFIGDIR ?= $(abspath .cache/matplotlib)

.PHONY: book test test-fast lint setup data preview bench clean

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# PyTorch first, pinned, so that sentence-transformers does not pull another build.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e ".[dev,app,ocr,book,postgres]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ddrsearch)" >/dev/null
	touch $(STAMP)

data: $(STAMP)
	$(BIN)/ddrsearch fetch

test: data
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest

# The fast tier: metrics, TREC files, fusion, tokenizer, BM25 reference, package shape (no PDFs, no model).
test-fast: setup
	$(BIN)/python -m pytest -q -m "not data and not model and not notebook"

lint: setup
	$(BIN)/ruff check code tests benchmarks
	$(BIN)/ruff check --select F,I --line-length 79 chapters

preview: data
	$(BIN)/ddrsearch preview --out _preview

# With Quarto: execute the chapters into _preview/ (chapters/ keeps no outputs), stage the book with
# those executed copies in _render/, render it there without executing, and move _book/ back here.
book: data
	@if command -v quarto >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory preview && \
		$(BIN)/python -m ddrsearch.book.render --executed _preview --stage _render && \
		(cd _render && QUARTO_PYTHON=$(abspath $(BIN)/python) PATH="$(abspath $(BIN)):$$PATH" quarto render --no-execute) && \
		rm -rf _book && mv _render/_book _book && echo "The book is in _book/ (HTML: _book/index.html)."; \
	else \
		echo "quarto not found (install it from https://quarto.org/docs/get-started/): writing executed chapters and HTML previews to _preview/ instead."; \
		$(MAKE) --no-print-directory preview; \
	fi

# Each benchmark prints its figures beside the targets, with the load average; the last step draws
# figures/latency-vs-scale.png from their JSON (bench-results/).
bench: data
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_cli.py
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_retrievers.py
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_index.py
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_postgres.py --scales $(PG_SCALES)
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_hostile.py
	$(BIN)/ddrsearch index build --corpus archive
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_app.py --corpus archive
	$(BIN)/python benchmarks/plot_latency.py

clean:
	rm -rf _book _preview _render .quarto .pytest_cache .hypothesis
