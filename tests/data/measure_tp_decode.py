#!/usr/bin/env python3
# Measures decode through transformer layers split by tensor parallelism over the GPUs of one host
# (bf16, random weights): the time of one decode step of k layers for N streams, each stream with a
# KV cache of CONTEXT tokens, the step captured as one CUDA graph with its two NCCL all-reduces per
# layer (after the attention output projection and after the MLP down projection, as Megatron-style
# tensor parallelism places them). Shapes: Llama 3.1 8B and Llama 3.3 70B (config.json of the
# meta-llama repositories). The per-layer time times the model's layer count is what decoding all
# its layers costs, without embedding and LM head.
# With --fused the layer is written as an engine writes it: fused RMSNorm, scaled_dot_product_attention
# (FlashAttention's decode kernel, grouped-query heads), and each half of the layer compiled by
# torch.compile (Inductor fuses the element-wise work), the all-reduces between the halves; vLLM
# runs its layers the same way (torch.compile plus CUDA graphs).
# Run: torchrun --nproc_per_node=D measure_tp_decode.py [--fused] > out.json   (D = 1 or 2)
import json
import os
import sys

import torch
import torch.distributed as dist

MODELS = {  # hidden, MLP, heads, KV heads, head dim, layers
    "llama-3.1-8b": (4096, 14336, 32, 8, 128, 32),
    "llama-3.3-70b": (8192, 28672, 64, 8, 128, 80),
}
CONTEXT = 4096
dev, dt = "cuda", torch.bfloat16


def rms(x):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dt)


FUSED = "--fused" in sys.argv
F = torch.nn.functional


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


if FUSED:
    attention_half = torch.compile(attention_half, dynamic=False)
    mlp_half = torch.compile(mlp_half, dynamic=False)


def fused_step(layers, x, nh, nkv, HD, i, d):
    for p in layers:
        o = attention_half(x, p["wqkv"], p["wo"], p["k"], p["v"], nh, nkv, HD)
        if d > 1:
            dist.all_reduce(o)
        x = x + o
        m = mlp_half(x, p["wgu"], p["wd"], i)
        if d > 1:
            dist.all_reduce(m)
        x = x + m
    return x


def measure(shape, k, n, d):
    H, I, NH, NKV, HD, _ = shape
    nh, nkv, i = NH // d, max(NKV // d, 1), I // d
    g = lambda *s: torch.randn(*s, device=dev, dtype=dt) * 0.02
    layers = [dict(wqkv=g(H, (nh + 2 * nkv) * HD), wo=g(nh * HD, H), wgu=g(H, 2 * i), wd=g(i, H),
                   k=g(n, nkv, CONTEXT, HD), v=g(n, nkv, CONTEXT, HD)) for _ in range(k)]
    x = torch.randn(n, H, device=dev, dtype=dt)

    def step(x):
        for p in layers:
            qkv = rms(x) @ p["wqkv"]
            q = qkv[:, : nh * HD].view(n, nkv, nh // nkv, HD)
            p["k"][:, :, -1:, :].copy_(qkv[:, nh * HD : (nh + nkv) * HD].view(n, nkv, 1, HD))
            p["v"][:, :, -1:, :].copy_(qkv[:, (nh + nkv) * HD :].view(n, nkv, 1, HD))
            s = (q @ p["k"].transpose(-1, -2)) * (HD ** -0.5)
            a = torch.softmax(s.float(), -1).to(dt) @ p["v"]
            o = a.reshape(n, nh * HD) @ p["wo"]
            if d > 1:
                dist.all_reduce(o)
            x = x + o
            gu = rms(x) @ p["wgu"]
            m = (torch.nn.functional.silu(gu[:, :i]) * gu[:, i:]) @ p["wd"]
            if d > 1:
                dist.all_reduce(m)
            x = x + m
        return x

    if FUSED:
        step = lambda x: fused_step(layers, x, nh, nkv, HD, i, d)  # noqa: E731
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(x)
    for _ in range(5):
        graph.replay()
    torch.cuda.synchronize()
    if d > 1:
        dist.barrier()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(20):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000 / 20)
    del layers, graph
    torch.cuda.empty_cache()
    return sorted(times)[2] / k  # seconds per layer per step


def main():
    d = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(rank)
    if d > 1:
        dist.init_process_group("nccl")
    torch.manual_seed(rank)
    out = {"gpu": torch.cuda.get_device_name(0), "gpus": d, "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())), "context": CONTEXT,
           "kernels": "fused (torch.compile, SDPA)" if FUSED else "eager, unfused attention",
           "results": []}
    for name, shape in MODELS.items():
        k = 8  # enough layers to time; the per-layer figure scales to the model's layer count
        for n in (1, 8, 32):
            per_layer = measure(shape, k, n, d)
            r = {"model": name, "tp": d, "streams": n, "layer_ms": round(per_layer * 1e3, 4),
                 "layers_tokens_per_s": round(n / (per_layer * shape[5]), 1)}
            out["results"].append(r)
            if rank == 0:
                print(r, file=sys.stderr, flush=True)
    if rank == 0:
        print(json.dumps(out, indent=1))
    if d > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
