# The README's two commands: `make demo` and `make test`. Both set everything up first.
VENV ?= .venv
PY := $(VENV)/bin/python
SET ?= demo
JOBS ?= 4

.PHONY: setup setup-run venv venv-run docker docker-run demo demo-mswea serve test lint bench

# Everything the tests use: the dev lock (the harness's own pins and the tools and services of
# the tests), the engine and the test-only system packages.
setup: venv docker

# What running the harness needs: `make demo` on a fresh machine waits for nothing else. The
# dev venv is a superset (the same pins), so one made by `make test` is reused as it is.
setup-run: venv-run docker-run

venv: $(VENV)/.installed

venv-run: $(VENV)/.installed-run

$(VENV)/.installed: requirements-dev.lock requirements.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r requirements-dev.lock
	$(PY) -c "import os, site; open(os.path.join(site.getsitepackages()[0], 'evaluator-local.pth'), 'w').write(os.getcwd() + '\n')"
	touch $@ $(VENV)/.installed-run

$(VENV)/.installed-run: requirements.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r requirements.lock
	$(PY) -c "import os, site; open(os.path.join(site.getsitepackages()[0], 'evaluator-local.pth'), 'w').write(os.getcwd() + '\n')"
	touch $@

docker:
	@.ci/docker-up --tests

docker-run:
	@.ci/docker-up

# lock -> gold gate -> attempts of the two bundled (simulated) agents -> report.
demo: setup-run
	$(VENV)/bin/doit lock:$(SET)
	$(VENV)/bin/doit -n $(JOBS) -P process gold:$(SET)
	$(VENV)/bin/doit -n $(JOBS) -P process eval:$(SET)
	$(VENV)/bin/doit report:$(SET)

# The bundled mini-swe-agent (the real package) on the demo set beside reference-weak, whose
# attempts `make demo` stored already; its own eval file (evals/mini-swe-agent/demo.yaml).
demo-mswea: setup
	$(VENV)/bin/doit lock:demo
	$(VENV)/bin/doit -n $(JOBS) -P process gold:demo
	EVAL_EVALS=evals/mini-swe-agent EVAL_REPORTS=reports/out/mini-swe-agent $(VENV)/bin/doit -n $(JOBS) -P process eval:demo
	EVAL_EVALS=evals/mini-swe-agent EVAL_REPORTS=reports/out/mini-swe-agent $(VENV)/bin/doit report:demo

serve: setup-run
	$(PY) -m evaluator serve

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# Two workers: most test time waits on containers and servers. A file's tests keep to one
# worker, so its module fixtures are made once, and all of tests/executor to one worker, so one
# Ray cluster serves them (tests/conftest.py; xdist's loadgroup ignores its groups under pytest 9).
TEST_JOBS ?= 2

test: setup lint
	$(PY) -m pytest -n $(TEST_JOBS) --dist loadfile

bench: setup
	$(PY) benchmarks/bench_noop.py
	$(PY) benchmarks/bench_stats.py
	$(PY) benchmarks/bench_throughput.py
	$(PY) benchmarks/bench_viewer.py
