# One entry point for instructors, TAs and CI. Every target installs what it needs first.
SHELL := /bin/bash
# The interpreter the venv is made from (make install PYTHON=/usr/bin/python3).
PYTHON ?= python3
# PyTorch's wheel index, e.g. https://download.pytorch.org/whl/cpu (the CPU build, a few hundred MB, for a machine
# without a GPU); unset, torch comes from the usual index like every other package.
TORCH_INDEX ?=
PIP   := .venv/bin/pip install --quiet --disable-pip-version-check
PY    := .venv/bin/python
VENV  := .venv/.installed
PART  ?= masks
# The assignment's facts, read with one interpreter start per make (standard library only; the engine's discovery
# rule, autograder/assignment.py): its name, the student notebook, its hidden suites, and the Jupyter kernel nbgrader
# runs its notebooks in (autograder/flows/nbgrader: the one the assignment declares, else <name>-isolated).
FACTS := $(shell python3 -c 'import autograder.assignment as a, autograder.flows.nbgrader as n; \
                             print(a.NAME, a.STUDENT_NOTEBOOK.relative_to(a.ROOT), a.ASSIGNMENT.suites, n.CURRENT.kernel)')
ASSIGNMENT := $(word 1,$(FACTS))
STUDENT_NB := $(word 2,$(FACTS))
SUITES := $(word 3,$(FACTS))
KERNEL := $(word 4,$(FACTS))
SUBMISSION ?= $(STUDENT_NB)
OUT   ?= results.json
export PYTHONHASHSEED := 0
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: install release lint test test-fast test-part smoke train autograde grade-all nbgrader-autograde \
        crosscheck gradescope bench clean clean-course

KERNEL_SPEC := .venv/share/jupyter/kernels/$(KERNEL)/kernel.json
install: $(VENV) $(KERNEL_SPEC)
$(VENV): requirements.txt requirements-dev.txt pyproject.toml setup.py
	$(PYTHON) -m venv .venv
	@# With TORCH_INDEX, torch alone from that index first (its dependencies are in the lock); the lock's
	@# torch==X then finds it installed (X+cpu satisfies ==X).
	$(if $(TORCH_INDEX),$(PIP) --no-deps --index-url $(TORCH_INDEX) "$$(grep -E '^torch==' requirements.txt)")
	$(PIP) -r requirements.txt -r requirements-dev.txt
	# The packages autograder and solutions, editable (pyproject.toml says which mode and why); the venv's
	# pinned setuptools builds it. Replaces the week7-package.pth line earlier checkouts wrote, and the
	# distribution's former name, week7-autograder (pyproject.toml), that they installed.
	rm -f "$$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/week7-package.pth"
	if .venv/bin/pip show --quiet week7-autograder 2>/dev/null; then .venv/bin/pip uninstall --quiet --yes week7-autograder; fi
	$(PIP) --no-deps --no-build-isolation --editable .
	.venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (autograder)" >/dev/null
	touch $@
# The kernel `nbgrader autograde` runs for this assignment (--sys-prefix, next to python3): it runs no code, it
# answers each test cell with the sandboxed grade (autograder/flows/nbgrader/kernel.py, kernelspec.py).
$(KERNEL_SPEC): $(VENV) autograder/flows/nbgrader/kernelspec.py
	$(PY) -m autograder.flows.nbgrader --install-kernel >/dev/null

## Instructor: build the nbgrader course, generate the student notebook, check it for leaks and drift: each
## assignment's own release (python -m autograder release). Week 7, then week 6 into the same course (build/course:
## each graded in the sandbox by its own package); with AUTOGRADER_ASSIGNMENT set, that assignment alone
## (docs/authoring.md).
release: $(VENV)
ifdef AUTOGRADER_ASSIGNMENT
	$(PY) -m autograder release $(if $(UPDATE),--update)
else
	$(PY) -m autograder release $(if $(UPDATE),--update)
	AUTOGRADER_ASSIGNMENT=solutions.week6_bigram $(PY) -m autograder release $(if $(UPDATE),--update)
endif

## The package's own tests (what .ci/run runs), after the lint.
test: $(VENV) lint
	@# The written-answer PDFs and the class report are tested in a real Chromium (Debian packages).
	@$(MAKE) --no-print-directory install-pdf || echo "(no Chromium: the PDF and report tests will say so)"
	@# The course the tests grade against (build/course): the same build and checks as `make release`.
	@test -f build/course/gradebook.db || $(MAKE) --no-print-directory release
	@# The package's tests (the 30 slowest named at the end: where the time goes); meanwhile the system-Python tier
	@# installs its clone (mostly pip: waiting on the disk), niced, and its fast tier runs once they are done, so that
	@# the two never compete for the cores.
	@mkdir -p $(SYSTEM_TIER); nice -n 10 make --no-print-directory system-python-ready > $(SYSTEM_TIER)/make.log 2>&1 & \
	  ready=$$!; $(PY) -m pytest tests -q --durations=30; status=$$?; \
	  if wait $$ready && make --no-print-directory system-python-fast >> $(SYSTEM_TIER)/make.log 2>&1; then \
	    tail -n 3 $(SYSTEM_TIER)/make.log; echo "fast tier on $(SYSTEM_PYTHON): passed ($(SYSTEM_TIER)/make.log)"; \
	  else tail -n 60 $(SYSTEM_TIER)/make.log; echo "fast tier on $(SYSTEM_PYTHON): FAILED ($(SYSTEM_TIER)/make.log)"; \
	    status=1; fi; exit $$status

## The fast tier on the system's own Python (Debian 12: 3.11.2, the oldest pyproject.toml claims), the way an
## instructor with only that Python runs it: a clone of this checkout (HEAD and the uncommitted changes to tracked
## files) in build/system-python/clone, where `make install release PYTHON=$(SYSTEM_PYTHON)` makes a venv of its own,
## then `make test-fast` there. `make test` runs it too (its log: build/system-python/make.log).
SYSTEM_PYTHON ?= /usr/bin/python3
SYSTEM_TIER := build/system-python
# A make of its own in the clone (not $$(MAKE): `make -n` must not start it), in an environment without this venv.
SYSTEM_MAKE = env -u VIRTUAL_ENV -u MAKEFLAGS -u MAKELEVEL PATH="$$(echo "$$PATH" | sed 's|$(CURDIR)/.venv/bin:||')" \
              make --no-print-directory -C $(SYSTEM_TIER)/clone PYTHON=$(SYSTEM_PYTHON)
test-system-python: system-python-ready system-python-fast

system-python-ready:
	@$(SYSTEM_PYTHON) -c 'import ensurepip, venv' 2>/dev/null || $(MAKE) --no-print-directory install-python-venv
	rm -rf $(SYSTEM_TIER)/clone && mkdir -p $(SYSTEM_TIER)
	@# A local clone links every object, the one `git stash create` just made too.
	rev="$$(git stash create)"; git clone --quiet --no-checkout . $(SYSTEM_TIER)/clone && \
	  git -C $(SYSTEM_TIER)/clone checkout --quiet --detach "$${rev:-HEAD}"
	@echo "system Python $(SYSTEM_PYTHON): $$($(SYSTEM_PYTHON) -c 'import platform; print(platform.python_version())')"
	$(SYSTEM_MAKE) install release

system-python-fast:
	$(SYSTEM_MAKE) test-fast
	rm -rf $(SYSTEM_TIER)/clone

## Debian's venv module (ensurepip) for the system Python, as root, the way install-pdf installs its packages.
install-python-venv:
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv; \
	else \
	  echo "$(SYSTEM_PYTHON) has no venv module; as root: apt-get install python3-venv"; exit 2; \
	fi
.PHONY: test-system-python system-python-ready system-python-fast install-python-venv

## ruff check and mypy (rules in pyproject.toml; autograder/linux under --strict); CI runs them first through `make test`.
lint: $(VENV)
	.venv/bin/ruff check .
	.venv/bin/mypy  # the engine, the sandbox, the flows, the settings ([tool.mypy] in pyproject.toml)
	@# The Linux layer, the sandbox, the engine and the flows strictly (every function typed, flows/nbgrader/ too);
	@# silent on the modules they import, which the run above checks.
	.venv/bin/mypy --strict --follow-imports=silent autograder/linux
	.venv/bin/mypy --strict --follow-imports=silent autograder/sandbox
	.venv/bin/mypy --strict --follow-imports=silent autograder/engine
	.venv/bin/mypy --strict --follow-imports=silent autograder/flows

## Everyday tier (< 2 min): every hidden suite against the reference, then the package tests not marked slow.
test-fast: $(VENV)
	@# One shell for both runs, so that it can print the wall time they took (whatever their outcome).
	@start=$$(date +%s.%N); \
	  $(PY) -m pytest $(SUITES) -q --assert=plain -p no:cacheprovider && \
	  $(PY) -m pytest tests -q -m "not slow"; status=$$?; \
	  echo "make test-fast: $$(awk -v s=$$start -v e=$$(date +%s.%N) 'BEGIN { printf "%.1f", e - s }') s wall time"; \
	  exit $$status

## One part only: its hidden suite against the reference (in-process), then the package tests marked with it.
test-part: $(VENV)
	$(PY) -m pytest $(SUITES)/test_$(PART).py -q --assert=plain -p no:cacheprovider
	$(PY) -m pytest tests -q -m $(PART)

smoke: $(VENV)
	$(PY) -m solutions.lab --smoke

train: $(VENV)
	$(PY) -m solutions.lab

## Grade one notebook: make autograde SUBMISSION=path.ipynb OUT=results.json
autograde: $(VENV)
	$(PY) -m autograder grade $(SUBMISSION) --out $(OUT)

## nbgrader, build/course: the plain `nbgrader autograde $(ASSIGNMENT) --force` (each submission graded in the
## sandbox by the course's grading service, bytes and result kept in build/course/isolated*/) with a progress
## bar, the gradebook checked against the records, generate_feedback (hidden tests removed) and export. A
## convenience: in any course `python -m autograder install-nbgrader` set up, plain nbgrader does the same.
## make nbgrader-autograde [FEEDBACK=score|checks|values|hints]
nbgrader-autograde: $(VENV) $(KERNEL_SPEC)
	@test -f build/course/gradebook.db || $(MAKE) release
	@# The current autograde settings, keeping the line of every assignment the course grades in the sandbox.
	$(PY) -c 'import pathlib, solutions.release.__main__ as r; r.refresh_config(pathlib.Path("build/course"))'
	$(PY) -m autograder.flows.nbgrader build/course $(if $(FEEDBACK),--feedback $(FEEDBACK))

## Regrade the recorded submissions (build/course/isolated*/) with the isolated grader; list every gradebook mismatch.
crosscheck: $(VENV) $(KERNEL_SPEC)
	$(PY) -m autograder crosscheck build/course

## Gradescope: build/gradescope/autograder.zip (setup.sh, run_autograder, pinned requirements, grader).
## make gradescope [FEEDBACK=score|checks|values|hints] [VISIBILITY=visible|hidden|after_due_date|after_published]
gradescope: $(VENV)
	$(PY) -m autograder.flows.gradescope.build

## Remove only what `make release` / the tests rebuild. Never submissions, gradebook.db, feedback,
## isolated records or grades: those are in build/course and the grades* files, which clean leaves alone.
clean:
	rm -rf build/cache build/bench build/bench-corpus build/gradescope build/student-repo build/system-python \
	       dist *.egg-info .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path "./.venv/*" -prune -exec rm -rf {} +

## Delete the whole nbgrader course (submissions, gradebook with hand grades, feedback), after asking.
clean-course:
	@read -r -p "Delete build/course with every submission, gradebook.db (hand grades) and feedback? Type yes: " answer; \
	  test "$$answer" = yes && rm -rf build/course && echo "build/course deleted" || echo "kept build/course"

## Grading speed vs `import torch` and vs nbgrader autograde, side by side (writes bench/results.md).
## Not a test; takes ~10 minutes. make bench N=40 NBGRADER_N=5
bench: $(VENV)
	@test -f build/course/gradebook.db || $(MAKE) release
	$(PY) -m tests.corpus.measured build/bench-corpus
	$(PY) bench/bench.py --corpus build/bench-corpus --n $(or $(N),40) --nbgrader-n $(or $(NBGRADER_N),5)

## Grade a folder of submissions into a CSV, resumably: make grade-all SUBMISSIONS=dir [GRADES=grades.csv] [JOBS=2]
grade-all: $(VENV)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade-all SUBMISSIONS=folder [GRADES=grades.csv] [JOBS=2]"; exit 2; }
	$(PY) -m autograder grade-all $(SUBMISSIONS) --out $(or $(GRADES),grades.csv) --jobs $(or $(JOBS),2)

## Student CI: build/student-repo = templates/student-ci + requirements.txt + the student notebook.
STUDENT_REPO := build/student-repo
student-repo:
	rm -rf $(STUDENT_REPO) && mkdir -p $(STUDENT_REPO)
	cp -r templates/student-ci/. $(STUDENT_REPO)/
	cp requirements.txt $(STUDENT_REPO)/
	cp $(or $(NOTEBOOK),$(STUDENT_NB)) $(STUDENT_REPO)/$(ASSIGNMENT).ipynb
	@# The current assignment's parts file (solutions/release/student_ci.py: the template's own is week 7's) and
	@# its notebook's name: never another assignment's checks against this notebook.
	@parts=$$($(PY) -c 'from solutions.release.student_ci import ci_parts; print(ci_parts())') && \
	  if [ ! -f "$$parts" ]; then echo "no student-CI parts file for $(ASSIGNMENT) ($$parts): release it first" \
	    "(AUTOGRADER_ASSIGNMENT=... .venv/bin/python -m autograder release --update)" >&2; exit 2; fi && \
	  cp "$$parts" $(STUDENT_REPO)/.github/scripts/parts.json && echo "parts file: $$parts"
	sed -i 's/^\(      NOTEBOOK: \).*/\1$(ASSIGNMENT).ipynb/' $(STUDENT_REPO)/.github/workflows/grade.yml

## Run, in build/student-repo, the command the workflow runs (exit 1 while public checks fail, as on GitHub).
student-ci-check: $(VENV) student-repo
	# The workflow's own line, with its env: NOTEBOOK must be set before the line expands "$$NOTEBOOK".
	cd $(STUDENT_REPO) && export PATH="$(CURDIR)/.venv/bin:$$PATH" NOTEBOOK=$(ASSIGNMENT).ipynb && \
	  python .github/scripts/public_checks.py "$$NOTEBOOK" --junit-xml public-checks.xml --executed executed.ipynb
.PHONY: student-repo student-ci-check

## PDFs of the written answers need a browser and MathJax from the OS (Debian/Ubuntu: chromium, libjs-mathjax;
## poppler-utils for the tests' pdftotext). Installs them when missing (as root); says what to do otherwise.
PDF_PACKAGES := chromium libjs-mathjax fonts-mathjax poppler-utils
install-pdf:
	@if command -v chromium >/dev/null && test -f /usr/share/javascript/mathjax/MathJax.js && command -v pdftotext >/dev/null; then \
	  echo "PDF engine ready: $$(chromium --version 2>/dev/null | head -1), MathJax in /usr/share/javascript/mathjax"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PDF_PACKAGES); \
	else \
	  echo "as root: apt-get install $(PDF_PACKAGES)"; exit 2; \
	fi

## Written answers: a PDF per student, a page per question, hand.csv to fill in.
## make written SUBMISSIONS=dir [WRITTEN=written/]
written: $(VENV) install-pdf
	@test -n "$(SUBMISSIONS)" || { echo "usage: make written SUBMISSIONS=folder [WRITTEN=written/]"; exit 2; }
	$(PY) -m autograder written $(SUBMISSIONS) --out $(or $(WRITTEN),written)
.PHONY: install-pdf written
