#!/usr/bin/env bash
# Regenerates the expected outputs from a bench built from schema-8 code
# (before migration 9), when report/show/export output changed on purpose:
#   store/testdata/v8/regen.sh /path/to/old/bench
set -euo pipefail
BIN=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/../v8.db" "$work/v8.db"
D=(--db "$work/v8.db")
"$BIN" report "${D[@]}" --last 20 >"$here/report.md"
"$BIN" report "${D[@]}" --last 20 --format csv >"$here/report.csv"
"$BIN" report "${D[@]}" --last 20 --format json >"$here/report.json"
"$BIN" report "${D[@]}" --last 20 --by trial >"$here/report_by_trial.md"
for r in 1 2 3 4 5 6 7 8 9 10; do "$BIN" export $r "${D[@]}" --calls | gzip -9 -n >"$here/export_$r.jsonl.gz"; done
"$BIN" show 1 --item 901 "${D[@]}" >"$here/show_1_901.txt"
"$BIN" show 3 "${D[@]}" >"$here/show_3.txt"
"$BIN" show 4 --item 2 "${D[@]}" >"$here/show_4_2.txt"
"$BIN" show 5 --item 1 "${D[@]}" >"$here/show_5_1.txt"
"$BIN" show 6 --item 900 "${D[@]}" >"$here/show_6_900.txt"
"$BIN" show 8 --item 900 "${D[@]}" >"$here/show_8_900.txt"
"$BIN" show 9 "${D[@]}" >"$here/show_9.txt"
"$BIN" resume 9 "${D[@]}" --max-cost 10 --prices "$here/prices.yaml" >/dev/null
"$BIN" resume 10 "${D[@]}" --max-cost 10 --prices "$here/prices.yaml" >/dev/null
"$BIN" report "${D[@]}" --last 2 --format csv | sed 's/,[^,]*$//' >"$here/resume.csv"
