#!/usr/bin/env python3
# Measures one decode step of a whole model (every transformer layer, no embedding, no LM head)
# for N streams under each way of placing it on the GPUs of one host: tensor parallelism over 1, 2
# or 4 GPUs (TP1, TP2, TP4), a pipeline of 2 or 4 GPUs (PP2, PP4: the layers split evenly over the
# stages, one GPU a stage), and two pipeline stages of TP2 each (TP2xPP2). bf16, random weights,
# each stream with a KV cache of CONTEXT tokens. Shapes: Llama 3.1 8B and Llama 3.3 70B
# (config.json of the meta-llama repositories), as in measure_tp_decode.py, whose layer this reuses.
# Kernels (--fused, as measure_tp_decode.py --fused): fused RMSNorm, scaled_dot_product_attention
# (grouped-query heads), each half of a layer compiled by torch.compile; two NCCL all-reduces per
# layer inside a TP group (after the attention output projection and after the MLP down projection).
# Each GPU allocates POOL distinct layers (weights and KV caches) and runs its stage's layers by
# cycling through them; a layer's weights (436 MB for 8B, 1.7 GB for 70B) are far larger than the
# GPU's L2, so no layer finds its weights cached. Each stage's layers are one CUDA graph.
# How a pipeline step is measured: a decode step is the whole pass of the batch through every stage
# (no micro-batching: what one engine step does for one batch, since the next step needs the tokens
# the last stage samples). Stage s waits for the activations (streams x hidden, bf16) from stage s-1
# (NCCL recv), replays its graph, and sends its output to stage s+1 (NCCL send); the last stage
# sends N int64 token ids back to stage 0, which starts the next step only once they arrive. The
# send/recv run eagerly between graph replays, as vLLM runs them between its pipeline stages. The
# step time is timed on stage 0 over consecutive steps (median of REPS runs of ITERS steps).
# Also per pipeline: each stage's graph alone (stage_ms, concurrently, no transfers), and from them
# hop_ms_derived = (step - sum of stages) / pp (pp-1 activation hops and the token hop), and
# hop_ms_pingpong: a send and receive of one activation between the first GPUs of stage 0 and 1,
# half a round trip, eager. With TP x PP each TP rank sends its full copy of the activations to its
# peer in the next stage. The process group is initialised eagerly (device_id), so PyTorch runs the
# unbatched send/recv on the world communicator, serialised with the other operations of that group
# on each GPU; in this one-batch pipeline each GPU has one transfer in flight at a time anyway.
# Figures are layers only: tokens_per_s = streams / step, per_stream_tokens_per_s = 1 / step.
# Run: torchrun --nproc_per_node=D measure_layouts_decode.py --fused [--out F.json] [--models 8b,70b]
#      [--deadline-s S]   (D = 1, 2 or 4; layouts that need more GPUs than D are left out). The JSON
#      goes to --out (rewritten after each configuration) or to standard output at the end.
#      run_layouts_device.sh runs it with measure_allreduce.py and measure_moe_decode.py; the
#      layouts_decode_*.json files are its output (layouts_decode.md tabulates them).
import argparse
import datetime
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

MODELS = {  # hidden, MLP, heads, KV heads, head dim, layers
    "llama-3.1-8b": (4096, 14336, 32, 8, 128, 32),
    "llama-3.3-70b": (8192, 28672, 64, 8, 128, 80),
}
LAYOUTS = [("tp1", 1, 1), ("tp2", 2, 1), ("tp4", 4, 1), ("pp2", 1, 2), ("pp4", 1, 4), ("tp2xpp2", 2, 2)]
STREAMS = (1, 8, 32)
CONTEXT = 4096
POOL = 8
REPS, ITERS, PINGPONG = 5, 5, 20
dev, dt = "cuda", torch.bfloat16
F = torch.nn.functional

ap = argparse.ArgumentParser()
ap.add_argument("--fused", action="store_true")
ap.add_argument("--out")
ap.add_argument("--models", default="8b,70b")
ap.add_argument("--deadline-s", type=float, default=1e9)
ARGS = ap.parse_args()
FUSED = ARGS.fused

for name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, name):
        setattr(torch._dynamo.config, name, 256)


def rms(x):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dt)


def attention_half(x, wqkv, wo, kc, vc, nh, nkv, HD):
    n = x.shape[0]
    qkv = F.rms_norm(x, (x.shape[-1],), eps=1e-5) @ wqkv
    q = qkv[:, : nh * HD].view(n, nh, 1, HD)
    kc[:, :, -1:, :].copy_(qkv[:, nh * HD : (nh + nkv) * HD].view(n, nkv, 1, HD))
    vc[:, :, -1:, :].copy_(qkv[:, (nh + nkv) * HD :].view(n, nkv, 1, HD))
    a = F.scaled_dot_product_attention(q, kc, vc, enable_gqa=nh != nkv)
    return a.reshape(n, nh * HD) @ wo


def mlp_half(x, wgu, wd, i):
    gu = F.rms_norm(x, (x.shape[-1],), eps=1e-5) @ wgu
    return (F.silu(gu[:, :i]) * gu[:, i:]) @ wd


def eager_attention_half(x, wqkv, wo, kc, vc, nh, nkv, HD):  # measure_tp_decode.py without --fused
    n = x.shape[0]
    qkv = rms(x) @ wqkv
    q = qkv[:, : nh * HD].view(n, nkv, nh // nkv, HD)
    kc[:, :, -1:, :].copy_(qkv[:, nh * HD : (nh + nkv) * HD].view(n, nkv, 1, HD))
    vc[:, :, -1:, :].copy_(qkv[:, (nh + nkv) * HD :].view(n, nkv, 1, HD))
    s = (q @ kc.transpose(-1, -2)) * (HD ** -0.5)
    a = torch.softmax(s.float(), -1).to(dt) @ vc
    return a.reshape(n, nh * HD) @ wo


def eager_mlp_half(x, wgu, wd, i):
    gu = rms(x) @ wgu
    return (F.silu(gu[:, :i]) * gu[:, i:]) @ wd


if FUSED:
    attention_half = torch.compile(attention_half, dynamic=False)
    mlp_half = torch.compile(mlp_half, dynamic=False)
else:
    attention_half, mlp_half = eager_attention_half, eager_mlp_half


def stage_forward(pool, nlayers, x, nh, nkv, HD, i, group):
    for j in range(nlayers):
        p = pool[j % len(pool)]
        o = attention_half(x, p["wqkv"], p["wo"], p["k"], p["v"], nh, nkv, HD)
        if group is not None:
            dist.all_reduce(o, group=group)
        x = x + o
        m = mlp_half(x, p["wgu"], p["wd"], i)
        if group is not None:
            dist.all_reduce(m, group=group)
        x = x + m
    return x


def world_sum(rank, world, value):
    """Every rank calls this; returns the list of each rank's value."""
    t = torch.zeros(world, device=dev, dtype=torch.float64)
    t[rank] = value
    dist.all_reduce(t)
    return t.tolist()


def barrier(rank):
    dist.barrier(device_ids=[rank])


def timed(fn, reps, iters):
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / 1000 / iters)
    return statistics.median(times), times


def run_config(model, shape, n, layout, tp, pp, rank, world, groups):
    """Every rank calls this with the same arguments. Returns a result dict on rank 0."""
    H, I, NH, NKV, HD, L = shape
    nparts = tp * pp
    part = rank < nparts
    stage, tpr = rank // tp, rank % tp
    nh, nkv, i = NH // tp, max(NKV // tp, 1), I // tp
    nlayers = L // pp
    group = groups.get(tuple(range(stage * tp, stage * tp + tp))) if (part and tp > 1) else None
    res = {}
    if part:
        gen = lambda *s: torch.randn(*s, device=dev, dtype=dt) * 0.02  # noqa: E731
        pool = [dict(wqkv=gen(H, (nh + 2 * nkv) * HD), wo=gen(nh * HD, H), wgu=gen(H, 2 * i), wd=gen(i, H),
                     k=gen(n, nkv, CONTEXT, HD), v=gen(n, nkv, CONTEXT, HD)) for _ in range(min(POOL, nlayers))]
        xin = torch.randn(n, H, device=dev, dtype=dt)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                stage_forward(pool, nlayers, xin, nh, nkv, HD, i, group)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            xout = stage_forward(pool, nlayers, xin, nh, nkv, HD, i, group)
        for _ in range(3):
            graph.replay()
        torch.cuda.synchronize()
    barrier(rank)
    # each stage's graph alone (for TP-only layouts: the whole step)
    stage_s = 0.0
    if part:
        stage_s, _ = timed(graph.replay, REPS, ITERS)
    stage_all = world_sum(rank, world, stage_s if (part and tpr == 0) else 0.0)
    stage_list = [stage_all[s_ * tp] for s_ in range(pp)]
    step_s, hop_pp = stage_list[0], None
    if pp > 1:
        # ping-pong of one activation between the first GPUs of stages 0 and 1
        barrier(rank)
        buf = torch.randn(n, H, device=dev, dtype=dt)
        a_, b_ = 0, tp

        def pingpong():
            if rank == a_:
                dist.send(buf, b_)
                dist.recv(buf, b_)
            elif rank == b_:
                dist.recv(buf, a_)
                dist.send(buf, a_)

        if rank in (a_, b_):
            for _ in range(3):
                pingpong()
            torch.cuda.synchronize()
            med, _ = timed(pingpong, REPS, PINGPONG)
            hop_pp = med / 2
        barrier(rank)
        # the pipelined step: stage 0 -> 1 -> ... -> last -> (token ids) -> stage 0
        tok = torch.zeros(n, device=dev, dtype=torch.int64)
        nxt, prv = rank + tp, rank - tp
        first, last = tpr, (pp - 1) * tp + tpr

        def one_step():
            if stage == 0:
                graph.replay()
                dist.send(xout, nxt)
                dist.recv(tok, last)
            elif stage == pp - 1:
                dist.recv(xin, prv)
                graph.replay()
                dist.send(tok, first)
            else:
                dist.recv(xin, prv)
                graph.replay()
                dist.send(xout, nxt)

        med = 0.0
        if part:
            for _ in range(3):
                one_step()
            torch.cuda.synchronize()
            med, _ = timed(one_step, REPS, ITERS)
        step_s = world_sum(rank, world, med if rank == 0 else 0.0)[0]
        hop_pp = world_sum(rank, world, hop_pp if rank == 0 else 0.0)[0]
    if part:
        del graph, pool, xout, xin
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    barrier(rank)
    if rank == 0:
        res = {"model": model, "layout": layout, "tp": tp, "pp": pp, "gpus": nparts, "streams": n,
               "layers": L, "layers_per_stage": nlayers,
               "step_ms": round(step_s * 1e3, 4),
               "layer_ms": round(sum(stage_list) / L * 1e3, 5),
               "per_stream_tokens_per_s": round(1 / step_s, 1),
               "tokens_per_s": round(n / step_s, 1)}
        if pp > 1:
            res["stage_ms"] = [round(x * 1e3, 4) for x in stage_list]
            res["hop_ms_derived"] = round((step_s - sum(stage_list)) / pp * 1e3, 4)
            res["hop_ms_pingpong"] = round(hop_pp * 1e3, 4)
            res["hop_bytes"] = n * H * 2
    return res


def main():
    t0 = time.time()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    torch.manual_seed(rank)
    groups = {}
    for tp in (2, 4):  # every rank creates every group, in the same order
        for start in range(0, world - tp + 1, tp):
            ranks = tuple(range(start, start + tp))
            groups[ranks] = dist.new_group(list(ranks))
    out = {"gpu": torch.cuda.get_device_name(0), "gpus": world, "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "context": CONTEXT,
           "kernels": "fused (torch.compile, SDPA)" if FUSED else "eager, unfused attention",
           "scope": "layers only: no embedding, no LM head, no sampling",
           "method": "whole model, each stage one CUDA graph of its layers (POOL distinct layers cycled); "
                     "pipelines: one batch through all stages per step, eager NCCL send/recv between stages, "
                     "token ids sent back from last stage to stage 0; median of %d runs of %d steps" % (REPS, ITERS),
           "pool_layers": POOL,
           "nccl_env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
           "results": [], "skipped": []}
    want = [m for m in MODELS if any(m.endswith("-" + w) for w in ARGS.models.split(","))]

    def dump():
        if rank == 0 and ARGS.out:
            with open(ARGS.out, "w") as f:
                json.dump(out, f, indent=1)

    for model in want:
        for n in STREAMS:
            for layout, tp, pp in LAYOUTS:
                if tp * pp > world:
                    continue
                go = torch.tensor([1.0 if time.time() - t0 < ARGS.deadline_s else 0.0], device=dev)
                dist.broadcast(go, 0)
                if go.item() == 0:
                    if rank == 0:
                        out["skipped"].append({"model": model, "layout": layout, "streams": n, "why": "deadline"})
                    continue
                r = run_config(model, MODELS[model], n, layout, tp, pp, rank, world, groups)
                if rank == 0:
                    r["elapsed_s"] = round(time.time() - t0, 1)
                    out["results"].append(r)
                    print(r, file=sys.stderr, flush=True)
                    dump()
    dump()
    if rank == 0 and not ARGS.out:
        print(json.dumps(out, indent=1))
    barrier(rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
