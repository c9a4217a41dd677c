# Every target sets itself up from nothing: a virtual environment in .venv with mt installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORPUS := data/spa-eng.tsv
SHARED_CORPUS := ../shared/data/spa-eng.tsv
# The recipe's data (make model, the domain benchmarks): ../shared/data when it sits beside the
# checkout, else what `mt download --recipe` fetches from the sources into SOURCES (gitignored).
SHARED_DATA := ../shared/data
SOURCES ?= data/sources
# The shipped model's name, as the package writes it once (mt.catalog.modelinfo.DEFAULT_MODEL).
SHIPPED_MODEL := $(shell sed -n 's/^DEFAULT_MODEL = "\(.*\)"$$/\1/p' $$(grep -rl --include='*.py' '^DEFAULT_MODEL = ' src/mt))
DATA_ROOT ?= $(if $(wildcard $(SHARED_DATA)/domains),$(SHARED_DATA),$(SOURCES))
DOMAINS ?= $(DATA_ROOT)/domains
GENERAL ?= $(DATA_ROOT)/general
BUDGET ?= 60m
RECIPE ?= default
# The demo trains a fixed number of steps, so its model does not depend on what else the machine
# runs (a time budget gives fewer steps under load); DEMO_BUDGET=1m trains for that long instead,
# for a quick look at every stage.
DEMO_STEPS ?= 2000
DEMO_BUDGET ?=

.PHONY: student student-anneal student-soup student-pack student-link bench-fit help setup test test-compile test-tools lint demo bench bench-train bench-train-start bench-everyday model-gpu-teacher bench-translate bench-arch bench-text bench-formats bench-documents bench-domain bench-domain-union bench-serve bench-export bench-evaluate bench-student-shape bench-scale bench-trust bench-peer bench-general bench-memory bench-shipped model model-gpu gpu-pack gpu-link release corpus sources clean

help:  ## these targets, a line each
	@grep -E '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed -E 's/^([a-z-]+):.*## /\1\t/' | \
		awk -F'\t' '{printf "  %-20s %s\n", $$1, $$2}'

setup: $(STAMP)  ## the virtual environment .venv with mt, its shipped model and the test tools

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

test: $(STAMP) test-tools  ## the test suite (sets itself up first; Chromium and gettext through apt when missing)
	$(BIN)/python -m pytest

# The one test make test leaves out (docs/code.md): torch.compile's training against eager
# training, about 50 s of CPU from a cold compile cache.
test-compile: $(STAMP)  ## the compiled-training test, which make test skips
	MT_COMPILE_TESTS=1 $(BIN)/python -m pytest tests/model/test_precision.py -k compiled -rs

# Two tests drive programs outside Python: Chromium (the browser test of `mt serve`'s page) and
# gettext's msgfmt (a translated .po file must compile). Installed with apt when running as root,
# otherwise a clear message (those tests never pass without running).
test-tools:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="chromium"; \
	command -v msgfmt >/dev/null 2>&1 || missing="$$missing gettext"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update && apt-get install -y $$missing; \
	else \
		echo "make test needs $$missing: run 'sudo apt-get install $$missing' (Debian/Ubuntu) or put it on PATH" >&2; exit 1; \
	fi

lint: $(STAMP)  ## ruff check and ruff format --check
	$(BIN)/ruff check src tests benchmarks experiments
	$(BIN)/ruff format --check src tests benchmarks experiments

# The corpus: data/spa-eng.tsv, else a copy of ../shared/data/spa-eng.tsv, else `mt download`.
corpus: $(STAMP)  ## data/spa-eng.tsv: ../shared's copy, else mt download
	@if [ -f $(CORPUS) ]; then echo "corpus: $(CORPUS)"; \
	elif [ -f $(SHARED_CORPUS) ]; then cp $(SHARED_CORPUS) $(CORPUS) && echo "corpus: copied $(SHARED_CORPUS)"; \
	else $(BIN)/mt download --out $(CORPUS); fi

# The model to use (docs/general.md): the default recipe trained for MODEL_BUDGET on the Tatoeba
# corpus, the training parts of the four domains and of TICO-19 and XQuAD (our by-document splits,
# mt.recipes.domain_split and general_split, so their dev and test parts stay unseen), and
# the UN News Spanish of ../shared/data/general back-translated by BT_ENGINE (Apertium; `mt
# backtranslate` resumes, and a finished file is not redone), tagged and capped at
# MODEL_SYNTHETIC_SHARE of the training pairs (MODEL_SYNTHETIC="un-news eltec" adds the novels:
# worse on every dev set, docs/general.md). Tokenizers of MODEL_VOCAB labels are learned on all
# of it. Selection: Tatoeba's selection part and the dev parts (checkpoints are chosen there);
# test: the first 1,000 pairs of make bench's Tatoeba test part and the general test parts, whose
# English sentences are kept out of training. MODEL_TEMPERATURE repeats the smaller real corpora
# (mt.data.prepare.upsampling). Without ../shared, `make sources` fetches what can be rebuilt
# exactly (the four domains and XQuAD; not TICO-19, FLORES, UN News or the novels: docs/general.md).
# `make bench-general` then scores it next to Apertium. Ready for `mt translate --model runs/model`.
# The steps are mt.recipes.release's: run again, it skips what is up to date and resumes what a kill
# stopped (training too); MODEL_ARGS="--from-step train" redoes a step and the ones after it.
BT_ENGINE ?= apertium -u spa-eng
MODEL_SYNTHETIC ?= un-news
MODEL_SYNTHETIC_SHARE ?= 0.5
MODEL_VOCAB ?= 8000
MODEL_BUDGET ?= 95m
MODEL_TEMPERATURE ?= 2
MODEL_ARGS ?=
model: corpus sources  ## the release recipe: splits, back-translation, prepare, 95 minutes of training
	$(BIN)/python -m mt.cli.release --corpus $(CORPUS) --domains $(DOMAINS) --general $(GENERAL) \
		$(if $(strip $(MODEL_SYNTHETIC)),$(foreach set,$(MODEL_SYNTHETIC),--synthetic $(set)),--no-synthetic) \
		--synthetic-share $(MODEL_SYNTHETIC_SHARE) --vocab $(MODEL_VOCAB) --budget $(MODEL_BUDGET) \
		--temperature $(MODEL_TEMPERATURE) --bt-engine "$(BT_ENGINE)" $(MODEL_ARGS)

# A link of the chain on a GPU (docs/release.md): the shipped model GPU_BASE trained further on
# make model's prepared data for GPU_BUDGET, in batches of 256, bf16 where the card has it. On an
# H200 450 s made 13,343 steps (6.2 epochs): selection loss 2.205 -> 1.801. Then `make release
# RELEASE_RUN=$(GPU_RUN)` decides on the dev part whether it ships.
GPU_BASE ?= $(SHIPPED_MODEL)
GPU_RUN ?= runs/gpu
GPU_BUDGET ?= 450s
GPU_SEED ?= 3
model-gpu: $(STAMP)  ## continue the shipped model on a GPU for GPU_BUDGET on make model's data
	$(BIN)/mt train $(RELEASE_DATA) --init-from $(GPU_BASE) --device cuda --batch-size 256 \
		--seed $(GPU_SEED) --time-budget $(GPU_BUDGET) --eval-every 1000 --out $(GPU_RUN)

# A larger teacher on a GPU (issue 51; docs/release.md): TEACHER_SHAPE trained from scratch on
# make model's prepared data for TEACHER_BUDGET, for sequence-level distillation into the shipping
# size (the teacher translates the real training English; the student trains on that on a CPU).
TEACHER_SHAPE ?= --d-model 512 --ff 2048 --heads 8 --layers 6
TEACHER_RUN ?= runs/teacher
TEACHER_BUDGET ?= 280s
model-gpu-teacher: $(STAMP)  ## a larger model on a GPU, the teacher of the next shipped one
	$(BIN)/mt train $(RELEASE_DATA) $(TEACHER_SHAPE) --device cuda --batch-size 512 --lr 0.04 --seed 4 \
		--time-budget $(TEACHER_BUDGET) --eval-every 1000 --out $(TEACHER_RUN)

# A GPU link in one device call (docs/release.md, "A link in one device call"). A call carries 64
# MiB with the working tree, and make model's prepared arrays do not fit beside it, so `make
# gpu-pack` packs what they are prepared from (the Tatoeba corpus, the split and held-out parts,
# the back-translations: GPU_INPUTS) and the wheels of the three small dependencies that
# preparing and training import and a device's Python lacks, into GPU_PACK; on the device `make
# gpu-link` installs those, prepares the data with GPU_BASE's tokenizers (the back-translations
# tagged), continues GPU_BASE with GPU_ARGS (`--encoder-layers 6`: the deep-encoder student grown
# from it) and writes the run as a model folder (bf16 weights, tables, lineage).
#
# GPU_EXTRA makes it two arms of one experiment: a second run, GPU_RUN-extra, prepared with those
# synthetic files too and trained beside the first on the same GPU with the same seed (a model of
# this size leaves most of the GPU idle), so that one call says what the extra data is worth.
#
# Training gets GPU_BUDGET, or less where preparing took long: it ends GPU_DEADLINE seconds after
# the link started, less GPU_TRAIN_OVERHEAD for its start-up, last evaluation and the copy, so that
# what was trained comes back inside the call's timeout (540 s) however fast the device's CPU
# prepares. A call brings back 8 files of 16 MiB at most, and a model folder is ten files with
# weights of 17 to 22 MB: each run comes back as one tar in GPU_PART pieces,
# $$OUT/NAME.tar.part-aa, -ab, ... (here: cat them | tar xf -).
GPU_DEADLINE ?= 510
GPU_TRAIN_OVERHEAD ?= 90
GPU_PART ?= 15M
GPU_PACK ?= runs/gpu-pack
GPU_SYNTHETIC ?= runs/bt/un-news.tsv runs/words/amlo-words.tsv runs/words/entries.tsv
GPU_EXTRA ?= $(AMLO_BT)
GPU_INPUTS ?= $(CORPUS) runs/model-split/train runs/model-general/train runs/model-parts \
	$(wildcard $(GPU_SYNTHETIC) $(GPU_EXTRA))
GPU_WHEELS ?= polib defusedxml pysbd
GPU_PYTHON ?= python
GPU_DEVICE ?= cuda
GPU_ARGS ?=
GPU_RUNS = $(GPU_RUN) $(if $(GPU_EXTRA),$(GPU_RUN)-extra)
# The second arm's data (issue 66, item 3): the presidential press conferences of days 1 to 5 of
# each month (56,542 paragraphs of 369,345: whole days, so no conference is cut), back-translated
# by BT_ENGINE. The link tags them with the other back-translations, under the same share.
AMLO_BT ?= runs/bt/amlo-days1-5.tsv
$(AMLO_BT): $(STAMP)
	mkdir -p $(dir $@)
	xz -dc $(DATA_ROOT)/general/amlo.es.tsv.xz | awk -F'\t' 'substr($$1, 9, 2) <= "05"' > $(@:.tsv=.es.tsv)
	$(BIN)/mt backtranslate $(@:.tsv=.es.tsv) --engine "$(BT_ENGINE)" --out $@

gpu-pack: $(STAMP) $(GPU_EXTRA)  ## what a GPU link prepares from, packed to travel with a device call
	rm -rf $(GPU_PACK)/wheels && mkdir -p $(GPU_PACK)/wheels
	tar cf - $(GPU_INPUTS) | xz -6 -T0 > $(GPU_PACK)/inputs.tar.xz.part
	mv $(GPU_PACK)/inputs.tar.xz.part $(GPU_PACK)/inputs.tar.xz
	$(call gpu_wheels,$(GPU_PACK)/wheels)
	du -sh $(GPU_PACK)/*
# $(call gpu_wheels,FOLDER): the wheels of GPU_WHEELS at the versions installed here
gpu_wheels = $(BIN)/pip download --quiet --no-deps --only-binary :all: -d $(1) \
	$(shell $(BIN)/pip freeze | grep -i -E '^($(subst $(eval) ,|,$(GPU_WHEELS)))==')

# $(call gpu_prepare,RUN,SYNTHETIC FILES): RUN-data from make model's inputs and those files (the
# shell looks for them: make expands a recipe before its first line unpacks them)
gpu_prepare = PYTHONPATH=src $(GPU_PYTHON) -m mt prepare $(CORPUS) runs/model-split/train/*.tsv \
	runs/model-general/train/*.tsv \
	$$(for file in $(2); do [ -f $$file ] && echo --synthetic $$file; done) \
	--synthetic-share $(MODEL_SYNTHETIC_SHARE) --tokenizers-from $(GPU_BASE) --no-extend \
	--selection runs/model-parts/selection.tsv --test runs/model-parts/test.tsv --paragraphs all \
	--max-length 64 --sampling-temperature $(MODEL_TEMPERATURE) --out $(1)-data --force
# $(call gpu_prepare_run,RUN): GPU_RUN-extra gets GPU_EXTRA beside GPU_SYNTHETIC
gpu_prepare_run = $(call gpu_prepare,$(1),$(GPU_SYNTHETIC) $(if $(filter %-extra,$(1)),$(GPU_EXTRA)))
# $(call gpu_train,RUN[,DATA]): GPU_BASE continued on DATA (RUN-data) for the shell's $$budget seconds
gpu_train = PYTHONPATH=src $(GPU_PYTHON) -m mt train $(or $(2),$(1)-data) --init-from $(GPU_BASE) $(GPU_ARGS) \
	--device $(GPU_DEVICE) --batch-size 256 --seed $(GPU_SEED) --time-budget $$budget \
	--eval-every 1000 --out $(1)
# $(call gpu_both,STEP): STEP for each run at once, their logs after; fails if any failed
gpu_both = pids=""; $(foreach run,$(GPU_RUNS),{ $(call $(1),$(run)) > $(run).$(1).log 2>&1 & \
	pids="$$pids $$!"; };) failed=0; for pid in $$pids; do wait $$pid || failed=1; done; \
	cat $(foreach run,$(GPU_RUNS),$(run).$(1).log); [ $$failed -eq 0 ]

# $(call gpu_budget,STARTED): the shell's $$budget, GPU_BUDGET or what is left of GPU_DEADLINE since
# the time in the file STARTED, less GPU_TRAIN_OVERHEAD; fails under 30 s
gpu_budget = left=$$(( $(GPU_DEADLINE) - $(GPU_TRAIN_OVERHEAD) - $$(date +%s) + $$(cat $(1)) )); \
	asked=$$(PYTHONPATH=src $(GPU_PYTHON) -c 'import sys; from mt.config import parse_duration; \
		print(int(parse_duration(sys.argv[1])))' $(GPU_BUDGET)); \
	budget=$$(( left < asked ? left : asked )); \
	echo "training for $$budget s: GPU_BUDGET $$asked s, $$left s left before GPU_DEADLINE"; \
	[ $$budget -ge 30 ] || { echo "error: preparing left $$left s of GPU_DEADLINE, under 30" >&2; exit 1; }; \
	budget=$${budget}s
# $(call gpu_bring_back,RUNS): each run as a model folder, one tar in GPU_PART pieces under $$OUT
gpu_bring_back = for run in $(1); do name=$$(basename $$run); \
	PYTHONPATH=src $(GPU_PYTHON) -m mt.cli.ship model $$run --name $$name --into $$run.shipped \
	&& tar cf - -C $$run.shipped $$name | split -b $(GPU_PART) - $${OUT:?set OUT}/$$name.tar.part- \
	|| exit 1; done; ls -la $$OUT

gpu-link:  ## on a device: unpack make gpu-pack's files, prepare, continue GPU_BASE, results to $OUT
	mkdir -p $(dir $(GPU_RUN)) && date +%s > $(GPU_RUN).started
	$(GPU_PYTHON) -m pip install --quiet --no-index --no-deps $(GPU_PACK)/wheels/*.whl
	tar xJf $(GPU_PACK)/inputs.tar.xz
	$(call gpu_both,gpu_prepare_run)
	$(call gpu_budget,$(GPU_RUN).started); $(call gpu_both,gpu_train)
	$(call gpu_bring_back,$(GPU_RUNS))

# The student on a GPU (issue 75, item 5): make student's own prepared data (make model's pairs
# and all of STUDENT_SPANISH back-translated, 667,395 pairs) travels whole but for its training
# token arrays, which would not fit beside the working tree: 25 MB in xz. On the device
# `make student-link` makes those arrays again, byte for byte as prepare.json records them
# (mt.data.prepare.rebuild), grows GPU_BASE into the student as make student does (its GPU_ARGS,
# benchmarks/quality/student.py's GROWTH), trains it for GPU_BUDGET or what is left of GPU_DEADLINE, and brings it back as gpu-link does.
STUDENT_PACK ?= runs/student-pack
STUDENT_GPU_RUN ?= runs/student-gpu
student-link: GPU_ARGS = --encoder-layers 6 --ff 1536
student-link: GPU_SEED = 11
student-pack: runs/student-data/prepare.json  ## make student's data, packed to travel with a device call
	rm -rf $(STUDENT_PACK) && mkdir -p $(STUDENT_PACK)
	$(call gpu_wheels,$(STUDENT_PACK)/wheels)
	tar cf - --exclude='train.*.ids' --exclude='train.*.offsets' runs/student-data \
		| xz -6 -T0 > $(STUDENT_PACK)/data.tar.xz.part
	mv $(STUDENT_PACK)/data.tar.xz.part $(STUDENT_PACK)/data.tar.xz
	du -sh $(STUDENT_PACK)/*
student-link:  ## on a device: make student-pack's data unpacked, the student grown and trained, to $OUT
	mkdir -p $(dir $(STUDENT_GPU_RUN)) && date +%s > $(STUDENT_GPU_RUN).started
	$(GPU_PYTHON) -m pip install --quiet --no-index --no-deps $(STUDENT_PACK)/wheels/*.whl
	xz -dc -T0 $(STUDENT_PACK)/data.tar.xz | tar xf -
	PYTHONPATH=src $(GPU_PYTHON) -m mt.data.prepare.rebuild runs/student-data
	$(call gpu_budget,$(STUDENT_GPU_RUN).started); $(call gpu_train,$(STUDENT_GPU_RUN),runs/student-data)
	$(call gpu_bring_back,$(STUDENT_GPU_RUN))

# The recipe's data from its public sources when ../shared/data is not there: resumable, each file
# checked against the digest its README records; what is there and right is skipped.
sources: $(STAMP)  ## the recipe's data: ../shared/data, else mt download --recipe into data/sources
	@if [ "$(DATA_ROOT)" = "$(SOURCES)" ]; then $(BIN)/mt download --recipe --root $(SOURCES); \
	else echo "sources: $(DATA_ROOT)"; fi

# The shipped model (docs/release.md): RELEASE_RUN (make model's run), calibrated on its selection
# part, written into the package as RELEASE_NAME (bf16 weights, tables, checksums), scored beside Apertium on the dev part (where the
# decision to ship is made) and the test part (for the record), and its card written from those
# files and bench_shipped's start-up figures. A benchmark exits 1 on a missed target: the card
# still records the figures. A version that keeps a shipped model's weights (no training link)
# names it as RELEASE_WEIGHTS_OF: its card repeats that card's training data and compute.
RELEASE_NAME ?= $(SHIPPED_MODEL)
RELEASE_RUN ?= runs/model
RELEASE_DATA ?= runs/model-data
RELEASE_WEIGHTS_OF ?=
release: corpus  ## runs/model into the package as the shipped model, scored, with its card
	@command -v apertium >/dev/null || { echo "release needs Apertium: sudo apt-get install apertium-eng-spa" >&2; exit 1; }
	test -f runs/tatoeba-split/test.tsv || $(BIN)/mt prepare $(CORPUS) --out runs/tatoeba-split --force
	test -f $(RELEASE_RUN)/calibration.json || $(BIN)/mt calibrate $(RELEASE_RUN)
	$(BIN)/python -m mt.cli.ship model $(RELEASE_RUN) --name $(RELEASE_NAME)
	for part in dev test; do $(BIN)/python -m benchmarks.quality.bench_general --run $(RELEASE_NAME) \
		--tatoeba runs/tatoeba-split --part $$part --out bench/release || test $$? = 1 || exit 1; done
	$(BIN)/python -m benchmarks.serving.bench_shipped --model $(RELEASE_NAME) --out bench/release/shipped \
		|| test $$? = 1 || exit 1
	$(BIN)/python -m mt.cli.ship card $(RELEASE_NAME) --run $(RELEASE_RUN) \
		$(if $(RELEASE_WEIGHTS_OF),--weights-of $(RELEASE_WEIGHTS_OF),--data $(RELEASE_DATA)) \
		--dev bench/release/dev.json --test bench/release/test.json \
		--speed bench/release/shipped/results.json --notes docs/release/$(RELEASE_NAME).json \
		$(if $(RELEASE_CURVE),--curve $(RELEASE_CURVE))

# What a person feels of the shipped model (cold `mt translate`, `mt serve` to its first answer)
# and what bf16 storage costs beside the float32 run and an int8 export, on SHIPPED_DEV (a dev set);
# SHIPPED_LANGUAGE: the dev files the language check's shortcut (mt.quality.flags) is measured on.
SHIPPED_DEV ?= runs/model-split/dev/news.tsv
SHIPPED_LANGUAGE ?= $(wildcard runs/model-split/dev/*.tsv runs/model-general/dev/*.tsv runs/model-parts/selection.tsv)
bench-shipped: $(STAMP)  ## start-up of mt translate and mt serve, and what bf16 storage costs
	$(BIN)/python -m benchmarks.serving.bench_shipped --out bench/shipped \
		$(if $(wildcard $(RELEASE_RUN)/best.safetensors),--run $(RELEASE_RUN)) \
		$(if $(wildcard $(SHIPPED_DEV)),--dev $(SHIPPED_DEV)) \
		$(if $(SHIPPED_LANGUAGE),--language-check $(SHIPPED_LANGUAGE))

# The release model beside Apertium (apt-get install apertium-eng-spa) on the same lines: FLORES
# dev, a held-out WMT news set, held-out TICO-19 and XQuAD documents, Tatoeba and the domains'
# test samples; GENERAL_PART=dev scores the development parts that choices are made on. Each set
# also counts the dictionary-attested words each carries, by training count (../shared/data/lexicon).
GENERAL_RUN ?= runs/model
GENERAL_PART ?= test
bench-general: corpus  ## a model beside Apertium on general text, Tatoeba and the domains
	@command -v apertium >/dev/null || { echo "bench-general needs Apertium: sudo apt-get install apertium-eng-spa" >&2; exit 1; }
	test -f runs/tatoeba-split/test.tsv || $(BIN)/mt prepare $(CORPUS) --out runs/tatoeba-split --force
	$(BIN)/python -m benchmarks.quality.bench_general --run $(GENERAL_RUN) --tatoeba runs/tatoeba-split --part $(GENERAL_PART)

# Everyday sentences (issue 51): the held-out Tatoeba pairs of make model and those of them with
# no near-duplicate in its training English, for EVERYDAY_RUNS (the version not to lose to first,
# the shipped one last) beside Apertium; EVERYDAY_PART selection (choices) or test (the record).
EVERYDAY_RUNS ?= $(SHIPPED_MODEL)
EVERYDAY_PART ?= selection
bench-everyday: $(STAMP)  ## everyday sentences with no near-duplicate in training, beside Apertium
	@command -v apertium >/dev/null || { echo "bench-everyday needs Apertium: sudo apt-get install apertium-eng-spa" >&2; exit 1; }
	$(BIN)/python -m benchmarks.quality.bench_everyday --runs $(EVERYDAY_RUNS) --part $(EVERYDAY_PART)

# How well a model holds what it was taught (issue 75): multi-reference BLEU on 2,000 trained-on
# Tatoeba lines of at most 6 words and on the held-out short phrases people type first, for
# FIT_RUN beside FIT_VERSUS (the targets: +10 and +5 BLEU over it).
FIT_RUN ?= $(SHIPPED_MODEL)
FIT_VERSUS ?=
bench-fit: corpus  ## how well a model holds its own training data, and the short phrases
	test -f runs/model-parts/test.tsv || $(BIN)/python -m mt.cli.release --corpus $(CORPUS) \
		--domains $(DOMAINS) --general $(GENERAL) --to-step parts
	$(BIN)/python -m benchmarks.quality.bench_fit --run $(FIT_RUN) $(if $(FIT_VERSUS),--versus $(FIT_VERSUS))

# The deep-encoder student (issue 75): make model's data and all the Spanish of ../shared/data/
# general back-translated by BT_ENGINE, prepared with the shipped model's tokenizers; the student
# grown from the shipped model, started or resumed at the lowest priority, its dev curve scored
# every CPU-hour (benchmarks/quality/student.py). Run it first thing; it ends with the session.
STUDENT_SPANISH ?= un-news amlo covid-mx spaccc
STUDENT_RUN ?= runs/student
runs/bt/%.tsv: | $(STAMP)
	mkdir -p $(dir $@)
	test -f runs/bt/$*.es.tsv || { xz -dc $(GENERAL)/$*.es.tsv.xz > runs/bt/$*.es.tsv.part && \
		mv runs/bt/$*.es.tsv.part runs/bt/$*.es.tsv; }
	$(BIN)/mt backtranslate runs/bt/$*.es.tsv --engine "$(BT_ENGINE)" --out $@
runs/student-data/prepare.json: $(foreach name,$(STUDENT_SPANISH),runs/bt/$(name).tsv)
	$(BIN)/python -m mt.cli.release --corpus $(CORPUS) --domains $(DOMAINS) --general $(GENERAL) \
		--to-step parts
	$(BIN)/mt prepare $(CORPUS) runs/model-split/train/*.tsv runs/model-general/train/*.tsv \
		$(foreach file,$^,--synthetic $(file)) --synthetic-share $(MODEL_SYNTHETIC_SHARE) \
		--tokenizers-from $(GPU_BASE) --no-extend --selection runs/model-parts/selection.tsv \
		--test runs/model-parts/test.tsv --paragraphs all --max-length 64 \
		--sampling-temperature $(MODEL_TEMPERATURE) --out runs/student-data --force
student: corpus sources runs/student-data/prepare.json  ## start or resume the student, in the background
	nohup nice -n 19 $(BIN)/python -m benchmarks.quality.student --data runs/student-data \
		--run $(STUDENT_RUN) > $(STUDENT_RUN).log 2>&1 &
	@echo "the student runs in the background: tail -f $(STUDENT_RUN).log; its curve: $(STUDENT_RUN)/dev-curve.csv"

# A ship candidate: a branch of the student whose rate falls from where the run is to 0 over
# ANNEAL_STEPS (benchmarks/quality/student.py --anneal-from); started or resumed like the student.
ANNEAL_STEPS ?= 1500
ANNEAL_RUN ?= $(STUDENT_RUN)-anneal
ANNEAL_FROM ?= $(STUDENT_RUN)
ANNEAL_SEED ?= 12
student-anneal: runs/student-data/prepare.json  ## a branch of the student annealed to rate 0, in the background
	nohup nice -n 19 $(BIN)/python -m benchmarks.quality.student --data runs/student-data \
		--run $(ANNEAL_RUN) --anneal-from $(ANNEAL_FROM) --anneal-steps $(ANNEAL_STEPS) --seed $(ANNEAL_SEED) \
		> $(ANNEAL_RUN).log 2>&1 &
	@echo "the branch runs in the background: tail -f $(ANNEAL_RUN).log"

# Two annealed branches of one start (seeds) averaged into one model, the first's files, their CPU
# ledgers summed (benchmarks/quality/average_runs.py): version 13 is these two so averaged.
SOUP_BRANCHES ?= $(STUDENT_RUN)-anneal-13 $(STUDENT_RUN)-anneal
SOUP_RUN ?= $(STUDENT_RUN)-soup
student-soup: $(STAMP)  ## the student's two annealed branches averaged into one model, to release
	$(BIN)/python -m benchmarks.quality.average_runs $(SOUP_BRANCHES) $(SOUP_RUN)

# Resident memory of a bf16 training run on MEMORY_DATA (make model's prepared data) over
# MEMORY_MINUTES, sampled every 5 s; exits 1 when it grows over 10% after the warm-up.
MEMORY_DATA ?= runs/model-data
MEMORY_MINUTES ?= 30
bench-memory: $(STAMP)  ## resident memory of a long training run
	$(BIN)/python -m benchmarks.scale.bench_memory --out bench/memory -- $(MEMORY_DATA) --out bench/memory/run \
		--time-budget $(MEMORY_MINUTES)m --precision auto --threads 2 --force

demo: corpus  ## prepare, train 2,000 steps, translate and evaluate a Tatoeba model
	$(BIN)/mt prepare $(CORPUS) --out runs/demo-data --force
	$(BIN)/mt train runs/demo-data --out runs/demo --force \
		$(if $(DEMO_BUDGET),--time-budget $(DEMO_BUDGET),--max-steps $(DEMO_STEPS))
	$(BIN)/mt translate --model runs/demo "Where is the train station?" "I don't like coffee." "Tom is reading a book in the garden."
	$(BIN)/mt evaluate runs/demo --limit 2000

# BENCH_ARGS: further bench.py options, e.g. "--change lr_decay=budget" or
# "--shared-vocab 8000 --change tie_embeddings=true" (one lever of docs/recipe.md's ablation).
BENCH_ARGS ?=
bench: corpus  ## the default recipe for BUDGET on the thesis' split, beside the thesis
	$(BIN)/python -m benchmarks.quality.bench --corpus $(CORPUS) --budget $(BUDGET) --recipe $(RECIPE) $(BENCH_ARGS)

bench-train: corpus  ## training speed
	$(BIN)/python -m benchmarks.speed.bench_train --corpus $(CORPUS)

# How soon training starts on make model's prepared data (RELEASE_DATA), and epoch 1 against 2.
bench-train-start: $(STAMP)  ## seconds from mt train to its first step; epoch 1 vs 2 steps/s
	$(BIN)/python -m benchmarks.speed.bench_train_start --data $(RELEASE_DATA)

bench-translate: corpus  ## decoding speed and quality, greedy and beam
	$(BIN)/python -m benchmarks.speed.bench_translate --corpus $(CORPUS)

# mt serve on loopback: 1,000 test sentences at 1/8/32 clients, greedy and beam 5, next to
# mt translate, then a 5-minute soak. SERVE_MODEL without weights: a 10-minute run is trained.
SERVE_MODEL ?= bench/model
SOAK ?= 300
bench-serve: corpus  ## mt serve under load, then a soak
	$(BIN)/python -m benchmarks.serving.bench_serve --corpus $(CORPUS) --model $(SERVE_MODEL) --soak $(SOAK)

bench-arch: corpus  ## architectures side by side
	$(BIN)/python -m benchmarks.quality.bench_arch --corpus $(CORPUS)

# Real text on a trained run (default: the `make demo` model): paragraphs, casual input,
# names/numbers, live pipe; NOISY_RUN, if trained, is a model trained with --source-noise. Then real
# typing (codespell's real misspellings, benchmarks/text/real_typing.py) on the selection part, where
# choices are made (five misspelling seeds: one seed's gap moves by half a BLEU point; a miss there
# still lets the test part be scored), and on the test part.
TEXT_RUN ?= runs/demo
TEXT_DATA ?= runs/demo-data
NOISY_RUN ?= runs/demo-noise
# Confidence and flags (docs/trust.md): Spearman with sentence chrF, bad share in the least
# confident 10%, copy-flag recall, on the test part and the domain test parts (all three run;
# the status is 1 when one missed a target). TRUST_RUN is written into (calibration.json, if it
# has none): give a copy of a run. The choices they rest on: benchmarks/trust/bench_trust_choices.py.
TRUST_RUN ?= runs/demo
TRUST_DATA ?= runs/demo-data
bench-trust: $(STAMP)  ## confidence, flags, protected spans and glossaries
	@test -f $(TRUST_RUN)/best.safetensors || { echo "bench-trust needs a trained run in $(TRUST_RUN): run 'make demo' first or give TRUST_RUN=RUN TRUST_DATA=PREPARED" >&2; exit 1; }
	status=0; \
	$(BIN)/python -m benchmarks.trust.bench_trust --run $(TRUST_RUN) --data $(TRUST_DATA) --domains $(DOMAINS) || status=1; \
	$(BIN)/python -m benchmarks.trust.bench_protect --run $(TRUST_RUN) --data $(TRUST_DATA) --domains $(DOMAINS) || status=1; \
	$(BIN)/python -m benchmarks.trust.bench_glossary --run $(TRUST_RUN) --domains $(DOMAINS) || status=1; \
	exit $$status

bench-text: $(STAMP)  ## real text: paragraphs, casual input, real misspellings
	@test -f $(TEXT_RUN)/best.safetensors || { echo "bench-text needs a trained run in $(TEXT_RUN): run 'make demo' first or give TEXT_RUN=RUN TEXT_DATA=PREPARED" >&2; exit 1; }
	$(BIN)/python -m benchmarks.text.bench_text --run $(TEXT_RUN) --data $(TEXT_DATA) \
		$(if $(wildcard $(NOISY_RUN)/best.safetensors),--noisy-run $(NOISY_RUN))
	-$(BIN)/python -m benchmarks.text.bench_real_typing --run $(TEXT_RUN) --data $(TEXT_DATA) --part selection --more-seeds 4
	$(BIN)/python -m benchmarks.text.bench_real_typing --run $(TEXT_RUN) --data $(TEXT_DATA) --part test

# Documents with their markup (HTML, Markdown, .po) on the shared development data, read in place
# (default: the demo model): markup preserved, tags placed, protected spans, BLEU, msgfmt, speed;
# the same for the run's export beside it (exported when missing or older than the run).
FORMATS_RUN ?= runs/demo
FORMATS_EXPORT ?= $(FORMATS_RUN)-export
bench-formats: $(STAMP)  ## documents with markup: HTML, Markdown, .po
	@test -f $(FORMATS_RUN)/best.safetensors || { echo "bench-formats needs a trained run in $(FORMATS_RUN): run 'make demo' first or give FORMATS_RUN=RUN" >&2; exit 1; }
	test $(FORMATS_EXPORT)/model.json -nt $(FORMATS_RUN)/best.safetensors || $(BIN)/mt export $(FORMATS_RUN) --out $(FORMATS_EXPORT) --force
	$(BIN)/python -m benchmarks.text.bench_formats --run $(FORMATS_RUN) --export $(FORMATS_EXPORT) --domains $(DOMAINS)

# Documents of 10 to 1,000 KB in each format, written around the news lines of ../shared/data (read
# in place; DOCUMENTS_ARGS=--synthetic without them), through the model `mt translate` uses, as
# documents and as plain lines: the slope, and the 300 KB targets (docs/documents.md).
DOCUMENTS_SIZES ?= 10 100 300 1000
DOCUMENTS_ARGS ?=
bench-documents: $(STAMP)  ## documents of 10 KB to 1 MB: linear cost, speed and memory beside plain lines
	$(BIN)/python -m benchmarks.text.bench_documents --sizes $(DOCUMENTS_SIZES) $(DOCUMENTS_ARGS)

# Fine-tuning on the four domains of ../shared/data/domains (our own by-document train/dev/test split,
# mt.recipes.domain_split), from the `make bench` model (DOMAIN_BASE, its data DOMAIN_BASE_DATA),
# whose vocabularies grow by the characters the domains need and the placeholder tokens, and whose
# smaller domains are repeated as in `make model` (DOMAIN_TEMPERATURE 2: news and tldr twice): 30 and
# 10 minutes, with DOMAIN_MIX rehearsal of the base data (0.5, chosen on the dev parts in docs/domain.md) and without;
# then BLEU/chrF (beam 5) of each on every domain's dev part and the Tatoeba selection part (where
# the recipe is chosen: results-dev.json), and on the test parts, for the record (results.json).
# About 100 minutes on a 2-core CPU.
DOMAIN_BASE ?= bench/run
DOMAIN_BASE_DATA ?= bench/data
DOMAIN_OUT ?= bench/domain
DOMAIN_TEMPERATURE ?= 2
DOMAIN_MIX ?= 0.5
DOMAIN_TUNE = $(BIN)/mt train $(DOMAIN_OUT)/data --init-from $(DOMAIN_BASE) --force
bench-domain: $(STAMP)  ## fine-tuning on the four domains
	@test -f $(DOMAIN_BASE)/best.safetensors || { echo "bench-domain needs the make bench model in $(DOMAIN_BASE): run 'make bench' first or give DOMAIN_BASE=RUN DOMAIN_BASE_DATA=PREPARED" >&2; exit 1; }
	$(BIN)/python -m mt.recipes.domain_split --domains $(DOMAINS) --out $(DOMAIN_OUT)/split
	$(BIN)/mt prepare $(DOMAIN_OUT)/split/train/*.tsv --tokenizers-from $(DOMAIN_BASE) \
		--paragraphs all --max-length 64 --split 0.96,0.03,0.01 --max-selection 1000 --max-test 500 \
		--sampling-temperature $(DOMAIN_TEMPERATURE) --out $(DOMAIN_OUT)/data --force
	$(DOMAIN_TUNE) --mix $(DOMAIN_BASE_DATA):$(DOMAIN_MIX) --time-budget 30m --out $(DOMAIN_OUT)/mix-30m
	$(DOMAIN_TUNE) --time-budget 30m --out $(DOMAIN_OUT)/plain-30m
	$(DOMAIN_TUNE) --mix $(DOMAIN_BASE_DATA):$(DOMAIN_MIX) --time-budget 10m --out $(DOMAIN_OUT)/mix-10m
	$(DOMAIN_TUNE) --time-budget 10m --out $(DOMAIN_OUT)/plain-10m
	for part in dev test; do $(BIN)/python -m benchmarks.quality.bench_domain --domains $(DOMAINS) \
		--tatoeba $(DOMAIN_BASE_DATA) --part $$part --beam 5 --run base=$(DOMAIN_BASE) \
		--run mix-10m=$(DOMAIN_OUT)/mix-10m --run mix-30m=$(DOMAIN_OUT)/mix-30m \
		--run plain-10m=$(DOMAIN_OUT)/plain-10m --run plain-30m=$(DOMAIN_OUT)/plain-30m \
		--json $(DOMAIN_OUT)/results$$( [ $$part = dev ] && echo -dev).json || exit 1; done

# The row trained from scratch for the same total time as the base and a 30-minute fine-tune
# (60 + 30 minutes): bench-domain's prepared data (same tokenizers, so the same test pairs) with the
# base's whole training part mixed in. UNION_FRACTION: 71,367 base pairs against 124,009 domain
# pairs, 0.365 draws 71,281 of the base's pairs an epoch, nearly all of them (docs/domain.md).
UNION_BUDGET ?= 90m
UNION_FRACTION ?= 0.365
bench-domain-union: $(STAMP)  ## one run on all the data, beside bench-domain's fine-tunes
	@test -f $(DOMAIN_OUT)/data/prepare.json || { echo "bench-domain-union needs bench-domain's prepared data in $(DOMAIN_OUT)/data: run 'make bench-domain' first" >&2; exit 1; }
	$(BIN)/mt train $(DOMAIN_OUT)/data --mix $(DOMAIN_BASE_DATA):$(UNION_FRACTION) \
		--time-budget $(UNION_BUDGET) --out $(DOMAIN_OUT)/union-$(UNION_BUDGET) --force
	$(BIN)/python -m benchmarks.quality.bench_domain --domains $(DOMAINS) --tatoeba $(DOMAIN_BASE_DATA) \
		--beam 5 --run union-$(UNION_BUDGET)=$(DOMAIN_OUT)/union-$(UNION_BUDGET) \
		--json $(DOMAIN_OUT)/results-union.json

# mt's PyTorch search next to its CTranslate2 float32 and int8 exports (default: the demo model).
EXPORT_RUN ?= runs/demo
EXPORT_DATA ?= runs/demo-data
bench-export: $(STAMP)  ## CTranslate2 exports beside PyTorch
	@test -f $(EXPORT_RUN)/best.safetensors || { echo "bench-export needs a trained run in $(EXPORT_RUN): run 'make demo' first or give EXPORT_RUN=RUN EXPORT_DATA=PREPARED" >&2; exit 1; }
	$(BIN)/python -m benchmarks.speed.bench_export --run $(EXPORT_RUN) --data $(EXPORT_DATA) --out bench/export

# mt evaluate beside mt translate, each in a process of its own, on 1,012 dev lines of GENERAL and
# DOMAINS with the shipped model (issue 67): evaluate within 1.3x translate's time, BLEU within 0.01.
bench-evaluate: $(STAMP)  ## mt evaluate's time and BLEU beside mt translate's, shipped model
	$(BIN)/python -m benchmarks.speed.bench_evaluate --general $(GENERAL) --domains $(DOMAINS) --out bench/evaluate

# Decoding speed of a deep-encoder, shallow-decoder student (6+2 layers, ff 1536) beside today's
# shape (2+2, ff 512), random weights in int8 CTranslate2, beam 5 on 2 threads, each batch of
# GENERAL's TICO-19 lines forced to its longest reference's length (issue 66): >= 0.5x today's.
bench-student-shape: $(STAMP)  ## a 6+2 student's decoding speed beside today's 2+2 shape
	$(BIN)/python -m benchmarks.speed.bench_student_shape --data $(GENERAL)/tico19.tsv --out bench/student-shape

# mt prepare and mt train on the real corpus and on synthetic corpora of SCALE_SIZES pairs (cached
# in bench/scale): time, memory, disk, train start and tokens/s against the scaling targets.
SCALE_SIZES ?= 1M,4M,16M
bench-scale: corpus  ## prepare and train on corpora of millions of pairs
	$(BIN)/python -m benchmarks.scale.bench_scale --corpus $(CORPUS) --sizes $(SCALE_SIZES) --out bench/scale

# mt beside eole 0.6.4 (its own .venv-eole: CPU torch first, so eole pulls no CUDA build), the
# same split, shape and batches, 1 thread each for PEER_MINUTES: steps/s, tokens/s, BLEU, decoding
# speed; exits non-zero when mt's fp32 target tokens/s fall under 1.2x eole's (per token: the per-step
# targets of issues 43 and 53 were retired).
PEER_MINUTES ?= 25
EOLE_VENV := .venv-eole
$(EOLE_VENV)/.installed:
	test -x $(EOLE_VENV)/bin/python || $(PYTHON) -m venv $(EOLE_VENV)
	$(EOLE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(EOLE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check eole==0.6.4 aiohttp
	touch $@
bench-peer: corpus $(EOLE_VENV)/.installed  ## mt beside eole: training and decoding speed
	$(BIN)/python -m benchmarks.peers.bench_peer --corpus $(CORPUS) --minutes $(PEER_MINUTES) --out bench/peer

clean:  ## remove .venv, runs/ and bench/
	rm -rf $(VENV) $(EOLE_VENV) runs bench .pytest_cache .ruff_cache
