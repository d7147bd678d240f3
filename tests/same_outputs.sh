#!/usr/bin/env bash
# Runs the same matrix of commands with two meshplan binaries and compares what they print:
# plan --json, check --json, emit (every format and backend) and dot on every example cluster,
# every cluster fixture and every replay folder. Timing fields (solve_ms) are blanked first.
# Used to prove that a restructuring changed no behaviour:
#
#   tests/same_outputs.sh OLD_BINARY NEW_BINARY
#
# Exit 0 when every output (stdout, and the exit code) is identical, 1 otherwise (the diffs are
# printed).
set -uo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 OLD_BINARY NEW_BINARY" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

clusters=("$root"/examples/clusters/*.yaml "$root"/tests/fixtures/clusters/*.json)
# Replays become clusters through discover, with each binary separately.
replays=("$root"/tests/replays/mesh4)
for d in "$root"/tests/fixtures/mlx_golden/*/inputs; do replays+=("$d"); done

models=(llama-3.3-70b-4bit deepseek-v3.1-4bit qwen3-235b-a22b-8bit)
backends=(auto jaccl jaccl-ring ring ethernet)
formats=(mlx-hostfile mlx-env setup teardown)

# Timing fields differ from run to run: solve_ms in JSON, "N ms - " on the text Solver line.
blank_timing() {
  sed -E -e 's/"solve_ms": *[0-9.eE+-]+/"solve_ms": 0/g' -e 's/^(Solver: .*), [0-9.]+ ms - /\1, 0 ms - /'
}

# run BIN TAG ARGS...: stdout and exit code of one command, timing fields blanked.
run() {
  local bin=$1 tag=$2
  shift 2
  local out
  out=$(cd "$root" && NO_COLOR=1 "$bin" "$@" 2>/dev/null)
  local rc=$?
  # A replay's cluster file has the same name in each binary's folder (old/, new/): as one.
  printf '%s\n' "$out" | blank_timing | sed -e "s#$work/old/#$work/X/#g" -e "s#$work/new/#$work/X/#g" \
    >"$work/$tag.out"
  echo "rc=$rc" >>"$work/$tag.out"
}

failures=0
compare() {  # compare NAME ARGS... (the cluster file is {C})
  local name=$1
  shift
  local a=() b=()
  for x in "$@"; do
    a+=("${x//\{C\}/$c_old}")
    b+=("${x//\{C\}/$c_new}")
  done
  run "$old" old "${a[@]}"
  run "$new" new "${b[@]}"
  if ! diff -u "$work/old.out" "$work/new.out" >"$work/diff"; then
    echo "DIFFERS: $name: ${b[*]}"
    head -40 "$work/diff"
    failures=$((failures + 1))
  fi
  compared=$((compared + 1))
}

compared=0
cases=()
for c in "${clusters[@]}"; do cases+=("file:$c"); done
for r in "${replays[@]}"; do cases+=("replay:$r"); done

for case in "${cases[@]}"; do
  kind=${case%%:*}
  src=${case#*:}
  if [[ $kind == replay ]]; then
    mkdir -p "$work/old" "$work/new"
    c_old="$work/old/replay.json"
    c_new="$work/new/replay.json"
    (cd "$root" && "$old" discover --replay "$src" -o "$c_old" -q >/dev/null 2>&1)
    (cd "$root" && "$new" discover --replay "$src" -o "$c_new" -q >/dev/null 2>&1)
    if ! cmp -s "$c_old" "$c_new"; then
      echo "DIFFERS: discover --replay $src"
      diff -u "$c_old" "$c_new" | head -40
      failures=$((failures + 1))
    fi
  else
    c_old=$src
    c_new=$src
  fi
  label=$(basename "$src")
  compare "$label check" check -c {C} --json
  compare "$label dot" dot -c {C}
  for b in "${backends[@]}"; do
    compare "$label check $b" check -c {C} --json --backend "$b"
    compare "$label dot $b" dot -c {C} --backend "$b"
    for f in "${formats[@]}"; do
      compare "$label emit $f $b" emit "$f" -c {C} --backend "$b"
    done
  done
  for m in "${models[@]}"; do
    for s in auto pipeline tensor expert; do
      plan_old="$work/plan_old.json"
      plan_new="$work/plan_new.json"
      (cd "$root" && "$old" plan -c "$c_old" -m "$m" --strategy "$s" -o "$plan_old" -q >/dev/null 2>&1) || rm -f "$plan_old"
      (cd "$root" && "$new" plan -c "$c_new" -m "$m" --strategy "$s" -o "$plan_new" -q >/dev/null 2>&1) || rm -f "$plan_new"
      compare "$label plan $m $s" plan -c {C} -m "$m" --strategy "$s" --json
      compare "$label plan $m $s text" plan -c {C} -m "$m" --strategy "$s"
      if [[ -f $plan_old && -f $plan_new ]]; then
        # The plan files themselves, then every consumer of a plan.
        a=$(blank_timing <"$plan_old")
        b=$(blank_timing <"$plan_new")
        if [[ "$a" != "$b" ]]; then
          echo "DIFFERS: $label plan file $m $s"
          failures=$((failures + 1))
        fi
        for f in "${formats[@]}"; do
          run "$old" old emit "$f" -c "$c_old" --plan "$plan_old"
          run "$new" new emit "$f" -c "$c_new" --plan "$plan_new"
          if ! cmp -s "$work/old.out" "$work/new.out"; then
            echo "DIFFERS: $label emit $f --plan ($m $s)"
            diff -u "$work/old.out" "$work/new.out" | head -20
            failures=$((failures + 1))
          fi
          compared=$((compared + 1))
        done
        run "$old" old dot -c "$c_old" --plan "$plan_old"
        run "$new" new dot -c "$c_new" --plan "$plan_new"
        if ! cmp -s "$work/old.out" "$work/new.out"; then
          echo "DIFFERS: $label dot --plan ($m $s)"
          failures=$((failures + 1))
        fi
        compared=$((compared + 1))
      elif [[ -f $plan_old || -f $plan_new ]]; then
        echo "DIFFERS: $label plan $m $s: only one binary wrote a plan file"
        failures=$((failures + 1))
      fi
    done
  done
done

echo "$compared outputs compared, $failures differ"
[[ $failures -eq 0 ]]
