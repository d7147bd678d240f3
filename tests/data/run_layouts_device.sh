#!/bin/bash
# Runs, on one host with D GPUs and within BUDGET seconds: a record of the software and GPU topology
# (env_TAG.txt), measure_allreduce.py (allreduce_TAG.json), measure_layouts_decode.py --fused
# (layouts_decode_TAG.json), then measure_moe_decode.py (moe_decode_TAG.json) with the time left;
# each script's log beside its JSON. The layouts script stops starting new configurations
# LAYOUT_SLACK seconds before the budget ends; what it finished is in its JSON.
# Run (from tests/data): bash run_layouts_device.sh OUTDIR TAG [BUDGET_S] [MODELS]
#   (TAG auto: h100x4, h200x2, ... from the GPUs found)
set -u
OUTDIR=$1
TAG=$2
BUDGET=${3:-560}
MODELS=${4:-8b,70b}
LAYOUT_SLACK=${LAYOUT_SLACK:-100}
export PYTHONUNBUFFERED=1
D=$(python3 -c 'import torch; print(torch.cuda.device_count())')
if [ "$TAG" = auto ]; then
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
    *H100*) TAG=h100x$D ;;
    *H200*) TAG=h200x$D ;;
    *) TAG=gpux$D ;;
  esac
fi
{
  date -u
  python3 -c 'import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.nccl.version())'
  nvidia-smi -L
  nvidia-smi topo -m
  python3 -m pip list 2>/dev/null | grep -i -E 'torch|vllm|nccl|triton'
  env | grep -E '^(NCCL|TORCH)_' | sort
} > "$OUTDIR/env_$TAG.txt" 2>&1
cat "$OUTDIR/env_$TAG.txt"
left() { echo $((BUDGET - SECONDS)); }
if [ "$D" -ge 2 ]; then
  timeout 100 torchrun --nproc_per_node="$D" measure_allreduce.py > "$OUTDIR/allreduce_$TAG.json" 2> "$OUTDIR/allreduce_$TAG.log"
  echo "allreduce rc=$? at ${SECONDS}s"
fi
T=$(( $(left) - 10 ))
timeout "$T" torchrun --nproc_per_node="$D" measure_layouts_decode.py --fused --models "$MODELS" \
  --out "$OUTDIR/layouts_decode_$TAG.json" --deadline-s $(( T - LAYOUT_SLACK )) 2> "$OUTDIR/layouts_$TAG.log"
echo "layouts rc=$? at ${SECONDS}s"
T=$(( $(left) - 5 ))
if [ "$T" -ge 60 ]; then
  DM=$(( D < 2 ? D : 2 ))
  timeout "$T" torchrun --nproc_per_node="$DM" measure_moe_decode.py --out "$OUTDIR/moe_decode_$TAG.json" \
    --deadline-s $(( T - 45 )) 2> "$OUTDIR/moe_$TAG.log"
  echo "moe rc=$? at ${SECONDS}s"
fi
python3 - "$OUTDIR" "$TAG" <<'EOF'
import json, sys, os
d, tag = sys.argv[1], sys.argv[2]
for f in ("allreduce", "layouts_decode", "moe_decode"):
    p = os.path.join(d, "%s_%s.json" % (f, tag))
    try:
        j = json.load(open(p))
    except Exception as e:
        print(p, "unreadable:", e)
        continue
    print(p, {k: v for k, v in j.items() if k not in ("results", "topo", "fit")})
    for r in j.get("results", []):
        print(" ", r)
    for r in j.get("fit", []):
        print("  fit", r)
EOF
for f in "$OUTDIR"/*.log; do echo "== $f"; grep -E -i 'error|Traceback|exception' "$f" | head -5; done
