#!/usr/bin/env bash
# Finding 2: two submissions end up as one student in grade-all (one row lost, one duplicated).
# Usage (from the checkout, after `make release`): tests/corpus/redteam/rt2/collide.sh /tmp/rt
set -eu
OUT=${1:-/tmp/rt}
PY=.venv/bin/python
SOL=build/course/source/week7_attention/week7_attention.ipynb
BLANK=assignments/week7_attention/week7_attention.ipynb
$PY tests/corpus/redteam/rt2/mk.py "$SOL" "$OUT/nb" diag0 >/dev/null
# (a) the "~2" suffix grade-all gives a second "alice" collides with a real student "alice~2"
rm -rf "$OUT/coll" "$OUT/collout"; mkdir -p "$OUT/coll"
cp "$SOL" "$OUT/coll/alice.ipynb"                               # alice: 100
cp "$BLANK" "$OUT/coll/alice_1_2_week7_attention.ipynb"         # Canvas name -> "alice" -> renamed "alice~2": 0
cp "$OUT/nb/diag0.ipynb" "$OUT/coll/alice~2.ipynb"              # the student alice~2: 77
$PY -m autograder grade-all "$OUT/coll" --out "$OUT/collout/grades.csv" >/dev/null 2>&1 || true
echo "== (a) three submissions, expected totals 100, 0, 77 =="; cut -d, -f1,9,10,12 "$OUT/collout/grades.csv"
# (b) merging into an existing --out: names that differ only by a control character vs its escape
rm -rf "$OUT/esc" "$OUT/escout"; mkdir -p "$OUT/esc"
cp "$BLANK" "$OUT/esc/zed.ipynb"
$PY -m autograder grade-all "$OUT/esc" --out "$OUT/escout/grades.csv" >/dev/null 2>&1 || true
cp "$SOL" "$OUT/esc/$(printf 'ann\tlee').ipynb"                   # 100
cp "$OUT/nb/diag0.ipynb" "$OUT/esc/ann\\x09lee.ipynb"             # 77 (a literal backslash-x-0-9)
$PY -m autograder grade-all "$OUT/esc" --out "$OUT/escout/grades.csv" 2>&1 | grep "grades.csv:" || true
echo "== (b) three submissions, expected three rows =="; cut -d, -f1,9,10,12 "$OUT/escout/grades.csv"
