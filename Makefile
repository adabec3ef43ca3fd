# One entry point for instructors, TAs and CI. Every target installs what it needs first.
SHELL := /bin/bash
PY    := .venv/bin/python
VENV  := .venv/.installed
PART  ?= masks
SUBMISSION ?= assignments/week7_attention/week7_attention.ipynb
OUT   ?= results.json
export PYTHONHASHSEED := 0
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: install release test test-fast test-part smoke train autograde grade-all nbgrader-autograde \
        crosscheck gradescope bench clean

install: $(VENV)
$(VENV): requirements.txt
	python3 -m venv .venv
	.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	# Make the repo importable (solutions, autograder) from the venv and its Jupyter kernel.
	echo "$(CURDIR)" > $$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/week7-package.pth
	.venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (week7)" >/dev/null
	touch $@

## Instructor: build the nbgrader course, generate the student notebook, check it for leaks and drift.
release: $(VENV)
	$(PY) -m solutions.release $(if $(UPDATE),--update)

## The package's own tests (what .ci/run runs).
test: $(VENV)
	$(PY) -m pytest tests -q

## One part only: its hidden suite against the reference (in-process), then the package tests marked with it.
test-part: $(VENV)
	$(PY) -m pytest autograder/suites/test_$(PART).py -q --assert=plain -p no:cacheprovider
	$(PY) -m pytest tests -q -m $(PART)

smoke: $(VENV)
	$(PY) -m solutions.lab --smoke

train: $(VENV)
	$(PY) -m solutions.lab

## Grade one notebook: make autograde SUBMISSION=path.ipynb OUT=results.json
autograde: $(VENV)
	$(PY) -m autograder grade $(SUBMISSION) --out $(OUT)

clean:
	rm -rf build .pytest_cache
