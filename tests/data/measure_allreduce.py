#!/usr/bin/env python3
# Measures the time of one NCCL all-reduce (sum, bf16) over the GPUs of one host, as a tensor-parallel
# decode step issues it: PER_GRAPH all-reduces of the same buffer captured back to back in one CUDA
# graph, the graph replayed REPLAYS times, each replay timed with CUDA events; the figure is the
# median replay time over PER_GRAPH (with the 10th and 90th percentiles). Sizes: 8 KiB (one stream
# of a 4096-wide hidden state) up to 16 MiB. Over all D GPUs, and over GPUs 0 and 1 when D > 2.
# From the figures: a latency lambda (the 8 KiB time) and a per-byte cost (the slope from 8 KiB to
# 16 MiB), and a least-squares fit t = lambda + bytes * per_byte over all sizes; algbw = bytes / t,
# busbw = algbw * 2 (D-1) / D (nccl-tests' convention). Also records the GPU, the NCCL version, the
# NCCL_* environment and `nvidia-smi topo -m`.
# Run: torchrun --nproc_per_node=D measure_allreduce.py > out.json   (D >= 2)
import datetime
import json
import os
import statistics
import subprocess
import sys

import torch
import torch.distributed as dist

SIZES = [8 << 10, 16 << 10, 64 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20, 16 << 20]
PER_GRAPH, REPLAYS = 20, 60


def bench(group, members, rank, nbytes):
    x = torch.zeros(nbytes // 2, device="cuda", dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            dist.all_reduce(x, group=group)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(PER_GRAPH):
            dist.all_reduce(x, group=group)
    for _ in range(5):
        g.replay()
    torch.cuda.synchronize()
    dist.barrier(group=group, device_ids=[rank])
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(REPLAYS + 1)]
    ev[0].record()
    for k in range(REPLAYS):
        g.replay()
        ev[k + 1].record()
    torch.cuda.synchronize()
    t = sorted(ev[k].elapsed_time(ev[k + 1]) * 1e3 / PER_GRAPH for k in range(REPLAYS))  # us
    del g
    return statistics.median(t), t[len(t) // 10], t[(9 * len(t)) // 10]


def main():
    world = int(os.environ["WORLD_SIZE"])
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    sets = [list(range(world))] + ([[0, 1]] if world > 2 else [])
    groups = [(m, dist.new_group(m)) for m in sets]
    try:
        topo = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True, timeout=30).stdout
    except Exception as e:  # noqa: BLE001
        topo = "nvidia-smi topo -m failed: %s" % e
    out = {"gpu": torch.cuda.get_device_name(0), "gpus": world, "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "method": "%d all-reduces (sum, bf16, in place) in one CUDA graph, %d replays each timed with "
                     "CUDA events; figure = median replay / %d" % (PER_GRAPH, REPLAYS, PER_GRAPH),
           "nccl_env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
           "topo": topo, "results": [], "fit": []}
    for members, group in groups:
        d = len(members)
        rows = []
        for nbytes in SIZES:
            if rank in members:
                med, p10, p90 = bench(group, members, rank, nbytes)
                alg = nbytes / (med * 1e-6) / 1e9
                rows.append({"gpus": d, "ranks": members, "bytes": nbytes, "us": round(med, 2),
                             "us_p10": round(p10, 2), "us_p90": round(p90, 2), "algbw_GBps": round(alg, 1),
                             "busbw_GBps": round(alg * 2 * (d - 1) / d, 1)})
                if rank == 0:
                    print(rows[-1], file=sys.stderr, flush=True)
            dist.barrier(device_ids=[rank])
        if rank == 0:
            out["results"] += rows
            xs = [r["bytes"] for r in rows]
            ys = [r["us"] for r in rows]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            slope = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)
            two = (ys[-1] - ys[0]) / (xs[-1] - xs[0])
            out["fit"].append({"gpus": d, "ranks": members,
                               "lambda_us": ys[0], "us_per_MiB": round(two * (1 << 20), 3),
                               "GBps_per_byte_slope": round(1e-3 / two, 1),
                               "lsq_lambda_us": round(my - slope * mx, 2),
                               "lsq_us_per_MiB": round(slope * (1 << 20), 3)})
    if rank == 0:
        print(json.dumps(out, indent=1))
    dist.barrier(device_ids=[rank])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
