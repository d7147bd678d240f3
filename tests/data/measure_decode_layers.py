#!/usr/bin/env python3
# Measures batched decode throughput of Llama-3.1-8B-shaped transformer layers (bf16, random
# weights) on one CUDA GPU: the aggregate tokens/s of N streams while the GPU holds k layers, each
# stream with a KV cache of CONTEXT tokens, the step replayed as one CUDA graph: alone
# (tokens_per_s) and as a pipeline stage runs it, with the activations copied in and out through
# host memory and a synchronisation per step (stage_tokens_per_s). The second is the quantity a
# meshplan throughput profile lists (no embedding, no LM head); the difference is the per-stage
# overhead of cost_defaults.json. The h100-* cases of profile_reference.json are its figures on
# one H100 80GB HBM3 (PyTorch 2.11.0+cu130, 2026-11-25).
# Run: python3 measure_decode_layers.py > out.json
import json
import sys
import time

import torch

H, I, NH, NKV, HD = 4096, 14336, 32, 8, 128  # Llama-3.1-8B (config.json of meta-llama/Llama-3.1-8B)
CONTEXT = 1024
dev, dt = "cuda", torch.bfloat16


def make_layer(n, layers):
    g = lambda *s: (torch.randn(*s, device=dev, dtype=dt) * 0.02)
    return [
        dict(wqkv=g(H, (NH + 2 * NKV) * HD), wo=g(NH * HD, H), wgu=g(H, 2 * I), wd=g(I, H),
             k=g(n, NKV, CONTEXT, HD), v=g(n, NKV, CONTEXT, HD))
        for _ in range(layers)
    ]


def rms(x):  # RMS norm; its weights are ones at random initialisation and are left out
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dt)


def step(x, layers):
    n = x.shape[0]
    for p in layers:
        qkv = rms(x) @ p["wqkv"]
        q = qkv[:, : NH * HD].view(n, NKV, NH // NKV, HD)
        k_new = qkv[:, NH * HD : (NH + NKV) * HD].view(n, NKV, 1, HD)
        v_new = qkv[:, (NH + NKV) * HD :].view(n, NKV, 1, HD)
        p["k"][:, :, -1:, :].copy_(k_new)  # the new token's KV takes the cache's last slot
        p["v"][:, :, -1:, :].copy_(v_new)
        s = (q @ p["k"].transpose(-1, -2)) * (HD ** -0.5)  # (n, NKV, group, CONTEXT)
        a = torch.softmax(s.float(), -1).to(dt) @ p["v"]  # (n, NKV, group, HD)
        x = x + a.reshape(n, NH * HD) @ p["wo"]
        gu = rms(x) @ p["wgu"]
        x = x + (torch.nn.functional.silu(gu[:, :I]) * gu[:, I:]) @ p["wd"]
    return x


def measure(n, k):
    layers = make_layer(n, k)
    x = torch.randn(n, H, device=dev, dtype=dt)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(x, layers)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(x, layers)
    for _ in range(5):
        graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = 30
    start.record()
    for _ in range(reps):
        graph.replay()
    end.record()
    torch.cuda.synchronize()
    graph_seconds = start.elapsed_time(end) / 1000 / reps
    # As a pipeline stage runs it: the activations arrive in host memory, are copied in, the
    # layers run, the result is copied out for the next stage and the host waits for it, once per
    # step (the hand-off a stage on another host needs; the network itself is not included).
    inbox = torch.randn(n, H, dtype=dt).pin_memory()
    outbox = torch.empty(n, H, dtype=dt).pin_memory()
    for _ in range(5):
        x.copy_(inbox, non_blocking=True)
        graph.replay()
        outbox.copy_(x, non_blocking=True)
        torch.cuda.synchronize()
    times = []  # the median of 5 runs, so that one stall of the host does not decide the figure
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            x.copy_(inbox, non_blocking=True)
            graph.replay()
            outbox.copy_(x, non_blocking=True)
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / reps)
    stage_seconds = sorted(times)[2]
    del layers, graph
    torch.cuda.empty_cache()
    return n / graph_seconds, n / stage_seconds


def main():
    torch.manual_seed(0)
    out = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "context": CONTEXT,
           "results": []}
    runs = [(32, n) for n in (1, 2, 4, 8, 16, 32)]
    runs += [(k, n) for k in (1, 2, 4, 8) for n in (1, 2, 4, 8, 16, 32)]
    for k, n in runs:
        graph_tps, stage_tps = measure(n, k)
        out["results"].append({"layers": k, "streams": n, "tokens_per_s": round(graph_tps, 1),
                               "stage_tokens_per_s": round(stage_tps, 1)})
        print(out["results"][-1], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
