#!/usr/bin/env bash
# Runs one matrix of commands with two meshplan binaries and compares everything they write, to
# prove that a restructuring changed no behaviour:
#
#   tests/same_outputs.sh OLD_BINARY NEW_BINARY     compare (exit 0: identical, 1: the diffs)
#   tests/same_outputs.sh --collect BINARY DIR      only write one binary's outputs into DIR
#
# The matrix: every example cluster and every cluster fixture (Macs, GPU nodes, the launch,
# advice, profile and Helix fixtures) and every replay folder (through discover); on each,
# check and dot (text and JSON, every backend) and the backend formats; plan under both
# objectives (latency: every strategy; throughput: auto and routed at 8 streams) for four models,
# each plan's text and file, then `emit all`'s whole folder (LAUNCH.md included), dot --plan and
# setup --plan, and every emit format by name on each objective's fastest plan; advise and
# profile; the workload plan.
# Searches with a deadline run on a work clock (MESHPLAN_WORK_CLOCK), so that two runs of one
# binary agree; solve and phase times are blanked.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# One command's stdout and exit code into a file of DIR (the command runs in DIR, so relative
# paths are the same for both binaries); timing fields blanked.
out_dir=""
bin=""
n=0
record() {  # record NAME ARGS...
  local name=$1
  shift
  local out rc
  out=$(cd "$out_dir" && NO_COLOR=1 MESHPLAN_WORK_CLOCK=200 "$bin" "$@" 2>/dev/null)
  rc=$?
  printf '%s\nrc=%s\n' "$out" "$rc" | blank_timing >"$out_dir/out/$name"
  n=$((n + 1))
}
blank_timing() {
  sed -E -e 's/"(solve_ms|solve_s|seconds)": *[0-9.eE+-]+/"\1": 0/g' \
    -e 's/^(Solver: .*), [0-9.]+ ms - /\1, 0 ms - /'
}

models_for() {  # the models planned on a cluster: two Mac-sized and two GPU-sized
  echo llama-3.3-70b-4bit deepseek-v3.1-4bit qwen3-30b-a3b-8bit gpt-oss-120b
}

collect_cluster() {  # collect_cluster LABEL CLUSTER_PATH
  local label=$1 c=$2
  record "$label.check.json" check -c "$c" --json
  record "$label.check.txt" check -c "$c"
  record "$label.dot" dot -c "$c"
  for b in auto jaccl jaccl-ring ring ethernet; do
    record "$label.check.$b.json" check -c "$c" --json --backend "$b"
    record "$label.dot.$b" dot -c "$c" --backend "$b"
    for f in mlx-hostfile mlx-env setup teardown; do
      record "$label.emit.$f.$b" emit "$f" -c "$c" --backend "$b"
    done
  done
  local formats
  formats=$(cd "$out_dir" && "$bin" emit --list 2>/dev/null | awk '{print $1}')
  for m in $(models_for); do
    local runs=("latency.auto" "latency.pipeline" "latency.tensor" "latency.expert"
      "latency.hybrid" "throughput.auto" "throughput.routed")
    for r in "${runs[@]}"; do
      local objective=${r%%.*} s=${r#*.}
      local args=(plan -c "$c" -m "$m" --strategy "$s")
      [[ $objective == throughput ]] && args+=(--objective throughput --concurrency 8)
      rm -f "$out_dir/plans/$label.$m.$r.json"
      local tag="$label.$m.$r"
      local pf="plans/$tag.json"
      # One run prints the text and writes the plan file (the JSON --json prints).
      record "$tag.plan.txt" "${args[@]}" -o "$pf"
      [[ -f $out_dir/$pf ]] || continue
      blank_timing <"$out_dir/$pf" >"$out_dir/out/$tag.planfile"
      # Every format by name on the fastest plan of each objective; emit all on every plan.
      if [[ $s == auto ]]; then
        for f in $formats; do
          record "$tag.emit.$f" emit "$f" -c "$c" --plan "$pf"
        done
      fi
      record "$tag.emit.all" emit all -c "$c" --plan "$pf" -o "all/$tag"
      if [[ -d $out_dir/all/$tag ]]; then
        # Every file of the folder, a replica's replica-N/ files included.
        while IFS= read -r f; do
          local rel=${f#"$out_dir/all/$tag/"}
          blank_timing <"$f" >"$out_dir/out/$tag.all.${rel//\//_}"
        done < <(find "$out_dir/all/$tag" -type f | sort)
      fi
      record "$tag.dot.plan" dot -c "$c" --plan "$pf"
      record "$tag.setup.plan" setup -c "$c" --plan "$pf"
    done
  done
  record "$label.advise.txt" advise -c "$c" -m llama-3.3-70b-4bit
  record "$label.advise.json" advise -c "$c" -m deepseek-v3.1-4bit --json
  record "$label.advise.throughput" advise -c "$c" -m qwen3-30b-a3b-8bit --objective throughput --concurrency 8
  record "$label.profile" profile -c "$c" -m llama-3.3-70b-4bit
}

collect() {  # collect BINARY DIR
  bin=$(realpath "$1")
  out_dir=$2
  mkdir -p "$out_dir/out" "$out_dir/plans" "$out_dir/all" "$out_dir/replays"
  out_dir=$(realpath "$out_dir")
  local clusters=("$root"/examples/clusters/*.yaml "$root"/tests/fixtures/clusters/*
    "$root"/tests/fixtures/advice/*.yaml "$root"/tests/fixtures/launch/*.yaml
    "$root"/tests/fixtures/helix/helix-[0-9]*[0-9].yaml "$root"/tests/fixtures/profiles/*.yaml)
  for c in "${clusters[@]}"; do
    collect_cluster "$(basename "$(dirname "$c")").$(basename "$c")" "$c"
  done
  local replays=("$root"/tests/replays/mesh4 "$root"/tests/fixtures/mlx_golden/*/inputs)
  for r in "${replays[@]}"; do
    local label
    label=replay.$(basename "$(dirname "$r")").$(basename "$r")
    record "$label.discover" discover --replay "$r" -o "replays/$label.json" -q
    [[ -f $out_dir/replays/$label.json ]] || continue
    cp "$out_dir/replays/$label.json" "$out_dir/out/$label.cluster"
    collect_cluster "$label" "replays/$label.json"
  done
  record workload.plan plan -c "$root/examples/clusters/mac-studio-m3-ultra-x4.yaml" \
    --workload "$root/tests/fixtures/workloads/two-models.yaml"
  record workload.plan.json plan -c "$root/examples/clusters/mac-studio-m3-ultra-x4.yaml" \
    --workload "$root/tests/fixtures/workloads/two-models.yaml" --json
  echo "$n outputs written to $out_dir/out"
}

if [[ $# -eq 3 && $1 == --collect ]]; then
  collect "$2" "$3"
  exit 0
fi
if [[ $# -ne 2 ]]; then
  echo "usage: $0 OLD_BINARY NEW_BINARY | $0 --collect BINARY DIR" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The two binaries run side by side (one core each).
"$0" --collect "$1" "$work/old" >"$work/old.log" 2>&1 &
old_pid=$!
"$0" --collect "$2" "$work/new" >"$work/new.log" 2>&1
wait "$old_pid"
cat "$work/old.log" "$work/new.log"
if diff -r "$work/old/out" "$work/new/out" >"$work/diff"; then
  echo "$(ls "$work/new/out" | wc -l) outputs compared, all identical"
  exit 0
fi
echo "outputs differ:"
grep -c '^diff ' "$work/diff" | sed 's/^/files differing: /'
head -200 "$work/diff"
exit 1
