#!/usr/bin/env bash
# Runs a libFuzzer target of a MESHPLAN_BUILD_FUZZERS build for a while, seeded from the
# repository's own fixtures, examples and replays (plus tests/fuzz/seeds/<target>/ and a
# dictionary), and prints the executions.
#
#   tests/fuzz/run.sh TARGET SECONDS [BUILD_DIR]   one target (cluster_yaml, ifconfig, ...)
#   tests/fuzz/run.sh all SECONDS [BUILD_DIR]      every target, SECONDS each, one per core at once
#   tests/fuzz/run.sh list                         the target names
#
# BUILD_DIR defaults to build-asan. The corpus grows in BUILD_DIR/fuzz-corpus/TARGET (kept
# between runs, never committed); an input that crashes, hangs or runs out of memory is written
# to BUILD_DIR/fuzz-findings/TARGET/ and the script exits 1. Keep such an input in
# tests/fuzz/regressions/TARGET/ once the parser is fixed: the normal test suite replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

targets() {
  for f in tests/fuzz/*_fuzzer.cpp; do
    basename "$f" _fuzzer.cpp
  done
}

# The seed files of a target, one path a line.
seeds() {
  local r=tests/replays f=tests/fixtures
  case $1 in
    cluster_json) ls $f/clusters/*.json ;;
    cluster_yaml) ls examples/clusters/*.yaml $f/clusters/*.yaml $f/launch/*.yaml ;;
    plan_file) ls $f/launch/*_plan.json ;;
    mlx_hostfile) ls $f/launchers/mlx_*.json $f/exo_mlx_distributed_config_examples.json ;;
    workload) ls $f/workloads/* ;;
    profile) ls $f/profiles/* ;;
    host_list) ls $f/launchers/*.hostfile ;;
    thunderbolt) find $f $r -name 'tb_sample_*.json' -o -name '*.system_profiler.json' ;;
    hardware) find $f $r -name 'SP*DataType*.json' -o -name '*.hardware.json' ;;
    networksetup) find $f $r -name 'networksetup*' -o -name '*.networksetup.txt' ;;
    ifconfig) find $f $r -name 'ifconfig*' -o -name '*.ifconfig.txt' -o -name '*.en0_ip.txt' ;;
    ibv) find $f $r -name 'ibv_*' -o -name '*.ibv_dev*.txt' -o -name 'ib_tools*' ;;
    sysctl) find $f $r -name 'sysctl*' -o -name '*.sysctl.txt' -o -name '*.wired_limit.txt' ;;
    sw_vers) find $f $r -name 'sw_vers*' -o -name '*.sw_vers.txt' ;;
    meminfo) ls $f/linux/*meminfo* ;;
    nvidia_smi) ls $f/linux/nvidia-smi_query-gpu*.csv ;;
    ip_json) ls $f/linux/ip-j*.json ;;
    gpu_topology) ls $f/linux/nvidia-smi_topo-m*.txt $f/linux/nvidia-smi_nvlink*.txt ;;
    *) ;;
  esac
}

# The dictionary of a target (tests/fuzz/dict/), empty when none fits.
dictionary() {
  case $1 in
    cluster_json | cluster_yaml) echo "json cluster" ;;
    plan_file | mlx_hostfile | expert_load | workload | profile | model_config | safetensors)
      echo "json files" ;;
    thunderbolt | hardware | ip_json) echo "json probes" ;;
    probe_output | networksetup | ifconfig | ibv | sysctl | sw_vers | meminfo | nvidia_smi | \
      linux_text | gpu_topology) echo "probes" ;;
    *) ;;
  esac
}

# The probe script's marked output of each replayed host: "@@meshplan NAME", the output,
# "@@meshplan-exit 0", ..., "@@meshplan-end".
probe_output_seeds() {
  local dir=$1 host
  for host in $(ls tests/replays/*/*.uname.txt | sed 's/\.uname\.txt$//'); do
    {
      for f in "$host".*; do
        local name=${f#"$host".}
        name=${name%.*}
        printf '@@meshplan %s\n' "$name"
        cat "$f"
        printf '\n@@meshplan-exit 0\n'
      done
      printf '@@meshplan-end\n'
    } >"$dir/replay-$(basename "$host")"
  done
}

run_one() {
  local target=$1 seconds=$2 build=$3
  local program=$build/tests/fuzz/${target}_fuzzer
  if [[ ! -x $program ]]; then
    echo "run.sh: no $program (configure with -DMESHPLAN_BUILD_FUZZERS=ON and build)" >&2
    return 2
  fi
  local corpus=$build/fuzz-corpus/$target findings=$build/fuzz-findings/$target
  local seed_dir=$build/fuzz-seeds/$target
  rm -rf "$seed_dir"
  mkdir -p "$corpus" "$findings" "$seed_dir"
  local f
  while read -r f; do
    [[ -n $f && -f $f ]] && cp "$f" "$seed_dir/$(echo "$f" | tr / _)"
  done < <(seeds "$target" 2>/dev/null || true)
  [[ -d tests/fuzz/seeds/$target ]] && cp tests/fuzz/seeds/"$target"/* "$seed_dir"/
  [[ $target == probe_output ]] && probe_output_seeds "$seed_dir"
  local args=(-max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$findings/")
  local dict=$build/fuzz-seeds/$target.dict d
  : >"$dict"
  for d in $(dictionary "$target"); do
    cat tests/fuzz/dict/"$d".dict >>"$dict"
  done
  [[ -s $dict ]] && args+=(-dict="$dict")
  local log=$build/fuzz-findings/$target.log
  echo "== $target: ${seconds}s, $(ls "$seed_dir" | wc -l) seed files, corpus $corpus"
  local rc=0
  nice "$program" "${args[@]}" "$corpus" "$seed_dir" >"$log" 2>&1 || rc=$?
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [[ $rc -ne 0 ]]; then
    tail -n 60 "$log"
    echo "== $target: FAILED (exit $rc) after ${execs:-?} executions; input kept in $findings/"
    return 1
  fi
  echo "== $target: ${execs:-?} executions, no finding"
  echo "$target ${execs:-0}" >>"$build/fuzz-findings/executions.txt"
}

if [[ ${1:-} == list ]]; then
  targets
  exit 0
fi
if [[ $# -lt 2 ]]; then
  echo "usage: tests/fuzz/run.sh TARGET|all SECONDS [BUILD_DIR]" >&2
  exit 2
fi
target=$1 seconds=$2 build=${3:-build-asan}
[[ $build == /* ]] || build=$root/$build
mkdir -p "$build/fuzz-findings"
: >"$build/fuzz-findings/executions.txt"
if [[ $target == all ]]; then
  # As many targets at once as there are cores (FUZZ_JOBS to change it); each one's lines are
  # printed together when it ends.
  jobs=${FUZZ_JOBS:-$(nproc)}
  out=$build/fuzz-findings/run-output
  rm -rf "$out"
  mkdir -p "$out"
  failed=()
  running=0
  for t in $(targets); do
    if [[ $running -ge $jobs ]]; then
      wait -n || true
      running=$((running - 1))
    fi
    (run_one "$t" "$seconds" "$build" >"$out/$t.txt" 2>&1 || touch "$out/$t.failed") &
    running=$((running + 1))
  done
  wait
  for t in $(targets); do
    cat "$out/$t.txt"
    [[ -f $out/$t.failed ]] && failed+=("$t")
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "run.sh: findings in: ${failed[*]}" >&2
    exit 1
  fi
  echo "run.sh: every target ran ${seconds}s without a finding"
else
  [[ -f tests/fuzz/${target}_fuzzer.cpp ]] || { echo "run.sh: no target $target (run.sh list)" >&2; exit 2; }
  run_one "$target" "$seconds" "$build"
fi
