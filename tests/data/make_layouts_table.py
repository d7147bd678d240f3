#!/usr/bin/env python3
# Writes layouts_decode.md from the measured files beside it: layouts_decode_*.json
# (measure_layouts_decode.py), allreduce_*.json (measure_allreduce.py) and moe_decode_*.json
# (measure_moe_decode.py). Every figure in the tables is copied or divided from those files; the
# file each one comes from is named above its table.
# Run: python3 make_layouts_table.py > layouts_decode.md   (from tests/data)
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUTS = ["tp1", "tp2", "tp4", "pp2", "pp4", "tp2xpp2"]
NAMES = {"tp1": "TP1", "tp2": "TP2", "tp4": "TP4", "pp2": "PP2", "pp4": "PP4", "tp2xpp2": "TP2xPP2"}


def load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


def head(j, name):
    return "`%s`: %d x %s, torch %s, NCCL %s, %s, context %s, kernels: %s." % (
        name, j["gpus"], j["gpu"], j["torch"], j["nccl"], j["date"], j.get("context", "-"), j.get("kernels", "-"))


def layout_table(name):
    j = load(name)
    got = {(r["model"], r["streams"], r["layout"]): r for r in j["results"]}
    lays = [l for l in LAYOUTS if any(k[2] == l for k in got)]
    print(head(j, name))
    print()
    cols = ["model", "streams"] + ["%s tok/s" % NAMES[l] for l in lays] + ["%s/TP1" % NAMES[l] for l in lays[1:]]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for model in dict.fromkeys(k[0] for k in got):
        for n in sorted({k[1] for k in got if k[0] == model}):
            row = [model, str(n)]
            base = got.get((model, n, "tp1"))
            for l in lays:
                r = got.get((model, n, l))
                row.append("%.1f" % r["tokens_per_s"] if r else "-")
            for l in lays[1:]:
                r = got.get((model, n, l))
                row.append("%.2f" % (r["tokens_per_s"] / base["tokens_per_s"]) if (r and base) else "-")
            print("| " + " | ".join(row) + " |")
    print()
    return got


def main():
    print("# Decode throughput of each layout on one host (issue #31)")
    print()
    print("Measured 2026-11-26. Figures are **layers only** (every transformer layer of the model, no "
          "embedding, no LM head, no sampling), bf16, random weights, context 4096 per stream, engine-like "
          "kernels (torch.compile + SDPA, CUDA graphs), as written by `measure_layouts_decode.py --fused` "
          "(method in its header). `tok/s` is the aggregate of all streams; per stream it is that divided "
          "by the stream count (every stream advances one token per step). A pipeline step is one batch "
          "through every stage, no micro-batching. Ratios are layout tok/s over TP1 tok/s of the same file.")
    print()
    print("4 x H100 were asked for; every call for `nvidia-h100-x4` or `nvidia-h100-x2`, over three "
          "sessions, was given H200s instead, so the multi-GPU figures are H200 (4 x H200 SXM, all pairs NV18). "
          "H100 was measured on one GPU only (TP1, last table).")
    print()
    print("## 4 x H200, first run")
    print()
    a = layout_table("layouts_decode_h200x4.json")
    print("## 4 x H200, second run (another machine of the same kind, same script)")
    print()
    b = layout_table("layouts_decode_h200x4_run2.json")
    diffs = [abs(b[k]["tokens_per_s"] / a[k]["tokens_per_s"] - 1) for k in a if k in b]
    print("Run-to-run spread over the %d configurations: median %.1f %%, largest %.1f %%." % (
        len(diffs), 100 * sorted(diffs)[len(diffs) // 2], 100 * max(diffs)))
    print()
    print("## 2 x H200")
    print()
    c = layout_table("layouts_decode_h200x2.json")
    print("## 4 x H200 through host memory (NCCL_P2P_DISABLE=1)")
    print()
    print("The first run's machine kind with NCCL's peer-to-peer access turned off: every all-reduce step and "
          "pipeline hop goes through host memory over each GPU's PCIe 5 link (NCCL's SHM transport), as on "
          "GPUs without peer-to-peer access.")
    print()
    layout_table("layouts_decode_h200x4_no_p2p.json")
    print("## 1 x H100 80GB HBM3 (TP1 only), against TP1 of the 4 x H200 first run")
    print()
    h = load("layouts_decode_h100x1.json")
    print(head(h, "layouts_decode_h100x1.json"))
    print()
    print("| model | streams | H100 TP1 tok/s | H200 TP1 tok/s | H200/H100 |")
    print("|---|---|---|---|---|")
    for r in h["results"]:
        k = (r["model"], r["streams"], "tp1")
        print("| %s | %d | %.1f | %.1f | %.2f |" % (r["model"], r["streams"], r["tokens_per_s"], a[k]["tokens_per_s"],
                                                  a[k]["tokens_per_s"] / r["tokens_per_s"]))
    print()
    print("## Per-layer time and pipeline hops (4 x H200, first run)")
    print()
    print("From `layouts_decode_h200x4.json`. layer_ms: the step over the layer count (TP: with its two "
          "all-reduces a layer; PP: each stage's graph alone, summed). hop derived: (step - sum of stages) / pp; "
          "hop ping-pong: half an eager round trip of one activation between two GPUs.")
    print()
    print("| model | streams | layout | step ms | layer ms | hop derived ms | hop ping-pong ms | activation bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for k, r in a.items():
        print("| %s | %d | %s | %.3f | %.4f | %s | %s | %s |" % (
            r["model"], r["streams"], NAMES[r["layout"]], r["step_ms"], r["layer_ms"],
            "%.4f" % r["hop_ms_derived"] if "hop_ms_derived" in r else "-",
            "%.4f" % r["hop_ms_pingpong"] if "hop_ms_pingpong" in r else "-", r.get("hop_bytes", "-")))
    print()
    print("## NCCL all-reduce in a CUDA graph")
    print()
    print("From `measure_allreduce.py` (sum, bf16, in place; median of 60 graph replays of 20 all-reduces). "
          "lambda = the 8 KiB time; us/MiB = slope from 8 KiB to 16 MiB; lsq = least-squares line over all sizes.")
    print()
    print("| file | GPUs | 8 KiB | 64 KiB | 256 KiB | 512 KiB | 1 MiB | 4 MiB | 16 MiB (us) | lambda us | us/MiB | lsq lambda us | lsq us/MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ("allreduce_h200x4.json", "allreduce_h200x4_run2.json", "allreduce_h200x2.json",
                 "allreduce_h200x4_no_p2p.json"):
        j = load(name)
        for fit in j["fit"]:
            us = {r["bytes"]: r["us"] for r in j["results"] if r["ranks"] == fit["ranks"]}
            cells = [us.get(b, "-") for b in (8 << 10, 64 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20, 16 << 20)]
            print("| `%s` | %d of %d H200 | %s | %s | %s | %s | %s |" % (
                name, fit["gpus"], j["gpus"], " | ".join(str(x) for x in cells), fit["lambda_us"], fit["us_per_MiB"],
                fit["lsq_lambda_us"], fit["lsq_us_per_MiB"]))
    print()
    print("## Mixture of experts: Qwen3-30B-A3B, one GPU against experts split over two")
    print()
    print("From `measure_moe_decode.py`: ep2 = attention TP2 + experts 64/64, two all-reduces a layer; "
          "routing by a random router. `_run1`/`_run2`: two GPUs of the 4 x H200 hosts above; "
          "`moe_decode_h200x2.json`: the 2 x H200 host; `moe_decode_h100x1.json`: one H100 (1gpu only).")
    print()
    print("| file | streams | 1gpu tok/s | ep2 tok/s | ep2/1gpu |")
    print("|---|---|---|---|---|")
    for name in ("moe_decode_h200x2.json", "moe_decode_h200x2_run1.json", "moe_decode_h200x2_run2.json",
                 "moe_decode_h100x1.json"):
        j = load(name)
        got = {(r["layout"], r["streams"]): r for r in j["results"]}
        for n in sorted({k[1] for k in got}):
            one, two = got.get(("1gpu", n)), got.get(("ep2", n))
            print("| `%s` (%s) | %d | %s | %s | %s |" % (
                name, j["gpu"], n, "%.1f" % one["tokens_per_s"] if one else "-",
                "%.1f" % two["tokens_per_s"] if two else "-",
                "%.2f" % (two["tokens_per_s"] / one["tokens_per_s"]) if (one and two) else "-"))
    print()
    notes(a, b, c)


def notes(*runs):
    print("## Notes (facts from the files above)")
    print()
    pp, tpp, hops, pings = [], [], [], []
    for got in runs:
        for (model, n, lay), r in got.items():
            base = got.get((model, n, "tp1"))
            if lay in ("pp2", "pp4") and base:
                pp.append(r["tokens_per_s"] / base["tokens_per_s"])
            if lay == "tp2xpp2" and (model, n, "tp2") in got:
                tpp.append(r["tokens_per_s"] / got[(model, n, "tp2")]["tokens_per_s"])
            if "hop_ms_derived" in r:
                hops.append(r["hop_ms_derived"])
                pings.append(r["hop_ms_pingpong"])
    print("- PP/TP1 over every (model, streams, PP2 or PP4) of the three layout files: %.2f to %.2f. "
          "TP2xPP2/TP2: %.2f to %.2f." % (min(pp), max(pp), min(tpp), max(tpp)))
    hs = sorted(hops)
    print("- Pipeline hops: derived %.4f to %.4f ms (median %.4f; the negative ones are where a stage timed "
          "alone came out slower than its share of the step), eager ping-pong %.4f to %.4f ms; "
          "pipeline steps are 2.8 to 45 ms." % (hs[0], hs[-1], hs[len(hs) // 2], min(pings), max(pings)))
    # bytes a TP1 step reads: weights of every layer + the KV cache of every stream
    for model, (H, I, NH, NKV, HD, L) in (("llama-3.1-8b", (4096, 14336, 32, 8, 128, 32)),
                                          ("llama-3.3-70b", (8192, 28672, 64, 8, 128, 80))):
        w = (H * (NH + 2 * NKV) * HD + NH * HD * H + 3 * H * I) * 2 * L
        for n in (1, 32):
            kv = 2 * NKV * HD * 4096 * 2 * n * L
            t = runs[0][(model, n, "tp1")]["step_ms"]
            print("- %s, %d stream(s), TP1 on H200: a step reads %.1f GB of weights and KV cache; measured %.2f ms, "
                  "%.2f TB/s." % (model, n, (w + kv) / 1e9, t, (w + kv) / 1e9 / t))
    E, EI, H = 128, 768, 2048
    att = (H * (32 + 8) * 128 + 32 * 128 * H) * 2
    exp1 = 3 * H * EI * 2
    kv1 = 2 * 4 * 128 * 4096 * 2
    one = (att + 8 * exp1 + kv1 + H * E * 2) * 48
    print("- Qwen3-30B-A3B, 1 stream: a step reads about %.1f GB (attention, 8 experts, router, KV cache over 48 "
          "layers), %.1f ms at 4.8 TB/s; measured 5.8 ms on H200 and 6.0 ms on H100, so at 1 stream this "
          "implementation (torch ops + torch._grouped_mm, no fused MoE kernel) is bound by its kernels' "
          "latency, not by memory." % (one / 1e9, one / 4.8e12 * 1e3))
    print("- The layout scripts cycle 8 distinct layers a GPU, so the 70B TP1 and PP figures do not depend on "
          "the model fitting: 70B in bf16 (141 GB of weights) fits no single H100 and leaves almost nothing "
          "for KV cache on one H200.")
    print()


if __name__ == "__main__":
    main()
