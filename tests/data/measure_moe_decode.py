#!/usr/bin/env python3
# Measures one decode step of a whole mixture-of-experts model (every layer, no embedding, no LM
# head) for N streams, bf16, random weights, each stream with a KV cache of CONTEXT tokens, on one GPU
# and with its experts split over two GPUs. Shape: Qwen3-30B-A3B as its Hugging Face config.json
# gives it (hidden 2048, 48 layers, 32 heads, 4 KV heads, head dim 128, 128 experts, 8 active a
# token, expert MLP 768, softmax router with the top 8 renormalised); read from copies of that
# config.json in public repositories, not from the hub itself. Left out as in measure_tp_decode.py:
# rotary embedding (and here Qwen3's per-head q/k RMSNorm).
# A layer: attention as measure_tp_decode.py --fused (fused RMSNorm, SDPA, torch.compile), then the
# router (RMSNorm, 2048x128 product, softmax, top 8), then the experts as one grouped GEMM each for
# gate/up and down (torch._grouped_mm, the token-expert pairs sorted by expert), weighted and summed
# back per token. Routing is the router's on random weights and inputs, so the experts a step reads
# are effectively random (a step of N streams reads the union of their experts).
# Layouts: "1gpu": everything on GPU 0. "ep2": two GPUs, attention tensor-parallel (16 heads, 2 KV
# heads each) and the experts split 64/64 (expert parallelism over the two); every GPU routes every
# token (same router weights, same input), computes its own experts' pairs, and the partial outputs
# are summed by an NCCL all-reduce; so two all-reduces a layer, as in tensor parallelism (vLLM's
# expert parallelism without all-to-all kernels does the same).
# Each GPU allocates POOL distinct layers and cycles through them; the whole step is one CUDA graph.
# Timing: median of REPS runs of ITERS replays.
# Run: torchrun --nproc_per_node=D measure_moe_decode.py [--out F.json] [--deadline-s S]   (D = 1 or 2+)
import argparse
import datetime
import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.distributed as dist

# hidden, expert MLP, heads, KV heads, head dim, layers, experts, active
SHAPE = ("qwen3-30b-a3b", (2048, 768, 32, 4, 128, 48, 128, 8))
STREAMS = (1, 8, 32)
CONTEXT = 4096
POOL = 8
REPS, ITERS = 5, 10
dev, dt = "cuda", torch.bfloat16
F = torch.nn.functional

ap = argparse.ArgumentParser()
ap.add_argument("--out")
ap.add_argument("--deadline-s", type=float, default=1e9)
ARGS = ap.parse_args()

for name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, name):
        setattr(torch._dynamo.config, name, 256)


def attention_half(x, wqkv, wo, kc, vc, nh, nkv, HD):
    n = x.shape[0]
    qkv = F.rms_norm(x, (x.shape[-1],), eps=1e-6) @ wqkv
    q = qkv[:, : nh * HD].view(n, nh, 1, HD)
    kc[:, :, -1:, :].copy_(qkv[:, nh * HD : (nh + nkv) * HD].view(n, nkv, 1, HD))
    vc[:, :, -1:, :].copy_(qkv[:, (nh + nkv) * HD :].view(n, nkv, 1, HD))
    a = F.scaled_dot_product_attention(q, kc, vc, enable_gqa=nh != nkv)
    return a.reshape(n, nh * HD) @ wo


attention_half = torch.compile(attention_half, dynamic=False)


def route(x, wr, k, e0, el):
    """Router and the sort of token-expert pairs by (local) expert; non-local pairs go last."""
    h = F.rms_norm(x, (x.shape[-1],), eps=1e-6)
    p = torch.softmax((h @ wr).float(), -1)
    w, ids = torch.topk(p, k)
    w = w / w.sum(-1, keepdim=True)
    flat = ids.reshape(-1)
    local = (flat >= e0) & (flat < e0 + el)
    key = torch.where(local, flat - e0, torch.full_like(flat, el))
    order = torch.argsort(key)
    counts = (key.unsqueeze(1) == torch.arange(el, device=x.device).unsqueeze(0)).sum(0)
    offs = counts.cumsum(0).to(torch.int32)
    tok = order // k
    return h[tok], offs, tok, (w.reshape(-1)[order]).to(x.dtype), local[order]


def act(gu, i):
    return F.silu(gu[:, :i]) * gu[:, i:]


def combine(y, wsorted, lsorted, tok, n):
    y = torch.where(lsorted.unsqueeze(1), y * wsorted.unsqueeze(1), torch.zeros_like(y))
    return torch.zeros(n, y.shape[1], device=y.device, dtype=y.dtype).index_add_(0, tok, y)


ROUTE_C = torch.compile(route, dynamic=False)
ACT_C = torch.compile(act, dynamic=False)
COMBINE_C = torch.compile(combine, dynamic=False)


def experts(x, p, k, e0, el, i):
    xs, offs, tok, ws, ls = ROUTE_C(x, p["wr"], k, e0, el)
    gu = torch._grouped_mm(xs, p["w13"], offs=offs)
    a = ACT_C(gu, i)
    y = torch._grouped_mm(a, p["w2"], offs=offs)
    return COMBINE_C(y, ws, ls, tok, x.shape[0])


def reference(x, p, k, e0, el, i):  # loop over experts, eager, for the correctness check
    h = F.rms_norm(x, (x.shape[-1],), eps=1e-6)
    pr = torch.softmax((h @ p["wr"]).float(), -1)
    w, ids = torch.topk(pr, k)
    w = (w / w.sum(-1, keepdim=True)).to(x.dtype)
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        for j in range(k):
            e = int(ids[t, j])
            if e0 <= e < e0 + el:
                gu = h[t : t + 1] @ p["w13"][e - e0]
                out[t] += (act(gu, i) @ p["w2"][e - e0])[0] * w[t, j]
    return out


def step(pool, nlayers, x, dims, group):
    nh, nkv, HD, i, k, e0, el = dims
    for j in range(nlayers):
        p = pool[j % len(pool)]
        o = attention_half(x, p["wqkv"], p["wo"], p["k"], p["v"], nh, nkv, HD)
        if group is not None:
            dist.all_reduce(o, group=group)
        x = x + o
        m = experts(x, p, k, e0, el, i)
        if group is not None:
            dist.all_reduce(m, group=group)
        x = x + m
    return x


def make_pool(H, I, nh, nkv, HD, el, n, count, shared):
    g = lambda *s: torch.randn(*s, device=dev, dtype=dt) * 0.02  # noqa: E731
    pool = []
    for _ in range(count):
        # w13: (experts, H, 2I) stored column-major per expert (as (E, 2I, H) transposed), like torchtitan
        pool.append(dict(wqkv=g(H, (nh + 2 * nkv) * HD), wo=g(nh * HD, H),
                         wr=(torch.randn(H, 128, device=dev, dtype=dt, generator=shared) * 0.02),
                         w13=g(el, 2 * I, H).transpose(-2, -1), w2=g(el, H, I).transpose(-2, -1),
                         k=g(n, nkv, CONTEXT, HD), v=g(n, nkv, CONTEXT, HD)))
    return pool


def run(layout, d, n, rank, group):
    H, I, NH, NKV, HD, L, E, K = SHAPE[1]
    nh, nkv, el = NH // d, max(NKV // d, 1), E // d
    e0 = rank * el
    shared = torch.Generator(device=dev)
    shared.manual_seed(1234 + n)
    pool = make_pool(H, I, nh, nkv, HD, el, n, min(POOL, L), shared)
    x = torch.randn(n, H, device=dev, dtype=dt, generator=shared)
    dims = (nh, nkv, HD, I, K, e0, el)
    check = None
    if n == 8:  # correctness of the grouped path against a loop over experts (no all-reduce)
        got = experts(x, pool[0], K, e0, el, I).float()
        ref = reference(x, pool[0], K, e0, el, I).float()
        check = float((got - ref).abs().max() / (ref.abs().max() + 1e-9))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(pool, L, x, dims, group)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(pool, L, x, dims, group)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    if group is not None:
        dist.barrier(group=group, device_ids=[rank])
    times = []
    for _ in range(REPS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(ITERS):
            graph.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / 1000 / ITERS)
    del graph, pool
    torch.cuda.empty_cache()
    t = statistics.median(times)
    r = {"model": SHAPE[0], "layout": layout, "gpus": d, "streams": n, "step_ms": round(t * 1e3, 4),
         "layer_ms": round(t / L * 1e3, 5), "per_stream_tokens_per_s": round(1 / t, 1),
         "tokens_per_s": round(n / t, 1)}
    if check is not None:
        r["grouped_vs_loop_rel_err"] = round(check, 5)
    return r


def main():
    t0 = time.time()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    torch.manual_seed(rank)
    g2 = dist.new_group([0, 1]) if world >= 2 else None
    out = {"gpu": torch.cuda.get_device_name(0), "gpus": world, "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "context": CONTEXT, "shape": dict(zip(("hidden", "expert_mlp", "heads", "kv_heads", "head_dim",
                                                    "layers", "experts", "active"), SHAPE[1])),
           "kernels": "attention: torch.compile + SDPA; router/combine: torch.compile; experts: torch._grouped_mm",
           "scope": "layers only: no embedding, no LM head, no sampling",
           "method": "whole model one CUDA graph (POOL distinct layers cycled); median of %d runs of %d replays"
                     % (REPS, ITERS), "pool_layers": POOL, "results": [], "errors": []}

    def dump():
        if rank == 0 and ARGS.out:
            with open(ARGS.out, "w") as f:
                json.dump(out, f, indent=1)

    for layout, d in (("1gpu", 1), ("ep2", 2)):
        if d > world:
            continue
        for n in STREAMS:
            go = torch.tensor([1.0 if time.time() - t0 < ARGS.deadline_s else 0.0], device=dev)
            dist.broadcast(go, 0)
            if go.item() == 0:
                continue
            ok = torch.tensor([1.0], device=dev)
            r = None
            if rank < d:
                try:
                    r = run(layout, d, n, rank, g2 if d == 2 else None)
                except Exception:  # noqa: BLE001
                    ok[0] = 0.0
                    if rank == 0:
                        out["errors"].append({"layout": layout, "streams": n, "error": traceback.format_exc()[-3000:]})
                        print(out["errors"][-1]["error"], file=sys.stderr, flush=True)
            dist.all_reduce(ok)
            if rank == 0 and r is not None:
                r["elapsed_s"] = round(time.time() - t0, 1)
                out["results"].append(r)
                print(r, file=sys.stderr, flush=True)
            dump()
    dump()
    if rank == 0 and not ARGS.out:
        print(json.dumps(out, indent=1))
    dist.barrier(device_ids=[rank])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
