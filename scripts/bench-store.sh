#!/usr/bin/env bash
# The store at research scale (issue 13), measured on bin/bench as a user
# runs it: ToT b=5 over 1,000 Game of 24 puzzles on the simulator (50,249
# calls) into a new database, then the same run again (every call a cache
# hit), then bench report. Prints bytes per call, the rerun's time and
# growth, peak RSS (GNU time) and the report's time.
# Usage: scripts/bench-store.sh [BIN]   (default bin/bench)
set -euo pipefail
BIN=${1:-bin/bench}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-store: needs GNU time at $TIME (apt-get install time)"; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db=$dir/tot1000.db
args=(run --db "$db" --task game24 --strategy tot --set b=5 --range 0:1000)

size() { stat -c %s "$db"; }
measure() { # label, then a command: wall seconds and peak RSS in kB
	"$TIME" -f "%e %M" -o "$dir/time" "${@:2}" >/dev/null
	read -r wall rss <"$dir/time"
	echo "$1 $wall $rss"
}

read -r _ run_s run_kb < <(measure run "$BIN" "${args[@]}")
calls=$("$BIN" report --db "$db" --format json | sed -n 's/.*"calls": \([0-9]*\).*/\1/p' | head -1)
first=$(size)
read -r _ rerun_s rerun_kb < <(measure rerun "$BIN" "${args[@]}")
second=$(size)
report=()
for _ in 1 2 3; do
	read -r _ s _ < <(measure report "$BIN" report --db "$db" --last 1)
	report+=("$s")
done

printf 'calls per run            %d\n' "$calls"
printf 'run                      %s s\n' "$run_s"
printf 'bytes per stored call    %d   (target <= 300; before: 1,922)\n' $((first / calls))
printf 'cached rerun             %s s, peak RSS %d MB   (target <= 2 s; before: 11.8 s)\n' "$rerun_s" $((rerun_kb / 1024))
printf 'bytes per call added     %d   (target <= 50; before: 1,383)\n' $(((second - first) / calls))
printf 'bench report             %s s   (target <= 0.25 s; before: 0.22-0.28 s)\n' "${report[*]}"
printf 'peak RSS of the run      %d MB   (target <= 140 MB; before: 131 MB)\n' $((run_kb / 1024))
