#!/usr/bin/env bash
# Finding 3: the Canvas user-id fallback of --lms reads the id from a file name the student chose.
# bob's folder holds his notebook named like a Canvas upload of alice (Canvas id 999); alice did not submit.
set -eu
OUT=${1:-/tmp/rt}
PY=.venv/bin/python
rm -rf "$OUT/lms" "$OUT/lmsout"; mkdir -p "$OUT/lms/bob" "$OUT/lmsout"
cp build/course/source/week7_attention/week7_attention.ipynb "$OUT/lms/bob/alice_999_1_week7_attention.ipynb"
printf 'student,name,email,lms_id\nalice,Alice A,a@x,999\nbob,Bob B,b@x,555\n' > "$OUT/lmsout/roster.csv"
$PY -m autograder grade-all "$OUT/lms" --out "$OUT/lmsout/grades.csv" --roster "$OUT/lmsout/roster.csv" --lms canvas \
    2>&1 | grep -iE "roster|canvas" || true
echo "== expected: Bob B 100, Alice A empty =="; cat "$OUT/lmsout/grades_canvas.csv"
