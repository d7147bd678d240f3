#!/usr/bin/env python3
# Measures one decode step of a whole mixture-of-experts model (every layer, no embedding, no LM head,
# no sampling) for N streams, random weights, each stream with a KV cache of CONTEXT tokens, with the
# expert weights in several number formats, on one GPU ("1gpu") and split over two ("ep2"). Same
# method as measure_moe_decode.py (whose Qwen3-30B-A3B figures this script reproduces as format bf16):
# POOL distinct layers a GPU cycled through the model's layer count, the whole step one CUDA graph,
# median of REPS runs of ITERS replays.
#
# Shapes (from the models' public config.json files, read from copies in public repositories):
# - gpt-oss-120b: hidden 2880, 36 layers, 64 query heads, 8 KV heads, head dim 64, 128 experts, 4 active
#   a token, expert MLP 2880 with a gated (SwiGLU-style) gate/up projection. Attention alternates a
#   sliding window of 128 tokens (even layers, whose KV cache here holds the window alone, as an engine
#   with a hybrid KV allocator keeps it) and full attention (odd layers, CONTEXT tokens). Router: top 4
#   of the 128 logits, softmax over those 4. Expert activation as gpt-oss's: gate clamped at 7, up
#   clamped to [-7, 7], gate * sigmoid(1.702 gate) * (up + 1). IGNORED: attention sinks (one learned
#   logit a head in the softmax's denominator), the biases of the attention, router and expert
#   projections, rotary embedding; gate/up are stored as two halves, not interleaved as in the checkpoint.
# - qwen3-30b-a3b: as measure_moe_decode.py (hidden 2048, 48 layers, 32 heads, 4 KV heads, head dim 128,
#   128 experts, 8 active, expert MLP 768, softmax router with the top 8 renormalised, SiLU gate); its
#   per-head q/k RMSNorm and rotary embedding are left out there and here.
# Attention and router weights are always bf16. Expert weight formats:
# - bf16: torch._grouped_mm (as measure_moe_decode.py).
# - bf16-ours: the same bf16 weights through our own Triton kernel below (a control for the kernel).
# - fp8: e4m3 weights, one fp32 scale per output row (per channel); our Triton kernel, W8A16 (weights
#   converted to bf16 in registers, the row scale applied to the fp32 accumulator).
# - mxfp4: OCP MX FP4: E2M1 values packed two a byte (low nibble first), one E8M0 exponent per 32
#   values along K: 4.25 bits a weight. Hopper has no MXFP4 instructions, so the weights go through our
#   own Triton kernel (_moe_gemm below, W4A16): it reads the packed bytes and the scales, decodes them to
#   bf16 in registers (with a PTX inline-assembly decoder or with plain Triton integer operations) and
#   multiplies on the tensor cores; or (variant 3, _moe_gemv) multiplies on the CUDA cores in fp32. It has
#   four variants (VARIANTS below); at startup every (variant, decoder) asked for is checked and timed on
#   one gpt-oss layer, and the fastest correct one for N <= 8 and for N > 8 is used (JSON:
#   "dequant_selection", "mxfp4_kernel_variant"). Variants 1-3 want the
#   nibbles of a 32-value group in "split" order (byte b = values b and b + 16 of the group) instead of
#   the checkpoint's order (byte j = values 2j, 2j + 1): an offline repack of the same 4.25 bits a weight,
#   as weight-only kernels do; the weights here are random bytes either way.
# Our kernel (_moe_gemm) is a grouped GEMM over the token-expert pairs sorted by expert: one program per
# (local expert, block of BN output features); it loops over its expert's rows in blocks of BM=16 and
# over K, computing weight-tile x activation-tile (weights as the MMA's M side, the few tokens as N).
# The gate/up kernel computes both halves and applies the activation; the down kernel writes the
# unweighted rows, and the same compiled combine as the bf16 path weights and sums them per token.
# A layer: attention (fused RMSNorm, QKV, SDPA over the cache, output projection; torch.compile), then
# the router (RMSNorm, H x 128 product, top-k; torch.compile) and the experts; routing is the router's
# on random weights and inputs, so the experts a step reads are effectively random.
# Layouts: "1gpu": all on one GPU. "ep2": two GPUs, attention tensor-parallel (half the query and KV
# heads each) and the experts split 64/64; every GPU routes every token, computes its own experts'
# pairs, and the partial outputs are summed by an NCCL all-reduce (two all-reduces a layer), exactly
# measure_moe_decode.py's "ep2". With two GPUs the 1gpu measurements run on both at once, different N
# on each (each GPU alone, nothing shared).
# Bytes a step reads (per GPU, in the JSON): attention weights + router + expected experts touched
# (E_local * (1 - (1 - k/E)^N) a layer under uniform random routing) x bytes an expert (with its
# scales) + the KV cache read by attention; activations left out.
# Checks: for fp8/mxfp4/bf16-ours, the experts' output at N=8 against the same routing with the weights
# dequantized to bf16 and multiplied by torch._grouped_mm ("dequant_ref_rel_err": max |diff| over max
# |ref|); for bf16, grouped against a loop over experts as in measure_moe_decode.py.
# Run: torchrun --nproc_per_node=D measure_moe_formats.py --out F.json [--deadline-s S]
#          [--blocks model:format,...] [--streams 1,2,...]        (D = 1 or 2)
#      python3 measure_moe_formats.py --table F.json [G.json ...]   (markdown tables, needs no torch)
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import time
import traceback

SHAPES = {
    "gpt-oss-120b": dict(hidden=2880, expert_mlp=2880, heads=64, kv_heads=8, head_dim=64, layers=36,
                         experts=128, active=4, sliding_window=128, router="topk_then_softmax",
                         activation="gpt-oss clamped swiglu (alpha 1.702, limit 7)"),
    "qwen3-30b-a3b": dict(hidden=2048, expert_mlp=768, heads=32, kv_heads=4, head_dim=128, layers=48,
                          experts=128, active=8, sliding_window=0, router="softmax_then_topk_renorm",
                          activation="silu gate * up"),
}
# bits a weight of an expert, scales included (fp8: one fp32 a row, counted separately)
FORMAT_BITS = {"bf16": 16, "bf16-ours": 16, "fp8": 8, "mxfp4": 4.25}
BLOCKS = ["gpt-oss-120b:mxfp4", "qwen3-30b-a3b:bf16", "qwen3-30b-a3b:mxfp4", "gpt-oss-120b:fp8",
          "gpt-oss-120b:bf16", "gpt-oss-120b:bf16-ours", "qwen3-30b-a3b:bf16-ours"]
STREAMS = (1, 2, 4, 8, 16, 32, 64)
CONTEXT = 4096
POOL = 8
REPS, ITERS = 5, 10
BM, BN = 16, 64
BK = {0: 64, 1: 128, 2: 256}  # by weight format of the kernel: bf16, fp8, mxfp4


def expert_bytes(s, fmt):
    h, i = s["hidden"], s["expert_mlp"]
    if fmt == "fp8":
        return 3 * h * i + (2 * i + h) * 4
    return 3 * h * i * FORMAT_BITS[fmt] / 8


def step_bytes(s, fmt, d, n):
    """Bytes one GPU reads in a step (weights touched + KV), and the experts it touches a layer."""
    h, hd, e, k = s["hidden"], s["head_dim"], s["experts"], s["active"]
    nh, nkv = s["heads"] // d, max(s["kv_heads"] // d, 1)
    el = e // d
    touched = el * (1 - (1 - k / e) ** n)
    total = 0.0
    for j in range(s["layers"]):
        ctx = s["sliding_window"] if (s["sliding_window"] and j % 2 == 0) else CONTEXT
        total += (h * (nh + 2 * nkv) * hd + nh * hd * h) * 2 + h * e * 2
        total += touched * expert_bytes(s, fmt)
        total += n * nkv * ctx * hd * 2 * 2
    return total, touched


def model_weight_bytes(s, fmt, d):
    """Weights a GPU holds for the whole model's layers (no embedding / LM head)."""
    h, hd = s["hidden"], s["head_dim"]
    att = (h * (s["heads"] + 2 * s["kv_heads"]) * hd + s["heads"] * hd * h) * 2 / d
    return s["layers"] * (att + h * s["experts"] * 2 + s["experts"] // d * expert_bytes(s, fmt))


# ------------------------------------------------------------------------------------------------
# markdown tables from result files (no torch needed)

def table(paths):
    lines = []
    for path in paths:
        with open(path) as f:
            out = json.load(f)
        res = out["results"]
        idx = {(r["model"], r["format"], r["layout"], r["streams"]): r for r in res}
        lines.append("`%s`: %d x %s, torch %s, Triton %s, NCCL %s, %s, context %d, pool %d layers a GPU." % (
            os.path.basename(path), out["gpus"], out["gpu"], out["torch"], out.get("triton", "-"),
            out.get("nccl", "-"), out["date"], out["context"], out["pool_layers"]))
        sel = out.get("dequant_selection", {})
        if sel:
            lines.append("")
            lines.append("MXFP4 kernel variant used: %s for N <= 8, %s for N > 8. Variants (one gpt-oss-120b layer's "
                         "experts alone, ms at N=1 / N=64, check rel err): %s." % (
                             sel.get("chosen_small_n", "-"), sel.get("chosen_large_n", "-"), "; ".join(
                                 "%s %s / %s, %s" % (k, v.get("ms_n1", "-"), v.get("ms_n64", "-"),
                                                     v.get("rel_err", "error"))
                                 for k, v in sel.items() if isinstance(v, dict))))
            kb = [r for r in out.get("kernel_bench", {}).get("results", []) if r["format"] != "mxfp4"]
            if kb:
                lines.append("")
                lines.append("Other formats, same bench: " + "; ".join(
                    "%s N=%d %.3f ms (%.2f TB/s)" % (r["format"], r["streams"], r["experts_ms"], r["tb_s"])
                    for r in kb))
        lines.append("")
        lines.append("| shape | format | layout | N | step ms | tok/s (all streams) | GB read / GPU | TB/s / GPU "
                     "| ep2/1gpu | 2 x 1gpu(N/2) / ep2(N) | check rel err |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        keys = sorted({(r["model"], r["format"]) for r in res},
                      key=lambda m: ([b.split(":")[0] for b in BLOCKS].index(m[0]),
                                     ["mxfp4", "fp8", "bf16", "bf16-ours"].index(m[1])))
        for model, fmt in keys:
            for layout in ("1gpu", "ep2"):
                for n in STREAMS:
                    r = idx.get((model, fmt, layout, n))
                    if r is None:
                        continue
                    one = idx.get((model, fmt, "1gpu", n))
                    ep = idx.get((model, fmt, "ep2", n))
                    half = idx.get((model, fmt, "1gpu", n // 2)) if n % 2 == 0 else None
                    ratio = "%.2f" % (ep["tokens_per_s"] / one["tokens_per_s"]) if (ep and one and layout == "ep2") else "-"
                    two = ("%.2f" % (ep["step_ms"] / half["step_ms"])) if (ep and half and layout == "ep2") else "-"
                    chk = r.get("dequant_ref_rel_err", r.get("grouped_vs_loop_rel_err", "-"))
                    lines.append("| %s | %s | %s | %d | %.3f | %.1f | %.2f | %.2f | %s | %s | %s |" % (
                        model, fmt, layout, n, r["step_ms"], r["tokens_per_s"], r["bytes_per_gpu_gb"],
                        r["tb_s_per_gpu"], ratio, two, chk))
        lines.append("")
        lines.append("Two single-GPU copies, each with N/2 streams, against one ep2 copy with N streams "
                     "(derived: two copies' tok/s = 2 x the 1gpu tok/s at N/2):")
        lines.append("")
        lines.append("| shape | format | N total | 2 x 1gpu(N/2) tok/s | ep2(N) tok/s | two copies / ep2 |")
        lines.append("|---|---|---|---|---|---|")
        for model, fmt in keys:
            for n in STREAMS[1:]:
                half, ep = idx.get((model, fmt, "1gpu", n // 2)), idx.get((model, fmt, "ep2", n))
                if half and ep:
                    lines.append("| %s | %s | %d | %.1f | %.1f | %.2f |" % (
                        model, fmt, n, 2 * half["tokens_per_s"], ep["tokens_per_s"],
                        2 * half["tokens_per_s"] / ep["tokens_per_s"]))
        if out.get("errors"):
            lines.append("")
            lines.append("Errors: " + "; ".join("%s %s %s N=%s" % (e.get("model"), e.get("format"), e.get("layout"),
                                                                    e.get("streams")) for e in out["errors"]))
        lines.append("")
    return "\n".join(lines)


if len(sys.argv) > 1 and sys.argv[1] == "--table":
    print(table(sys.argv[2:]))
    sys.exit(0)

# ------------------------------------------------------------------------------------------------
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

dev, dt = "cuda", torch.bfloat16
F = torch.nn.functional

ap = argparse.ArgumentParser()
ap.add_argument("--out")
ap.add_argument("--deadline-s", type=float, default=1e9)
ap.add_argument("--blocks", default=",".join(BLOCKS))
ap.add_argument("--streams", default=",".join(map(str, STREAMS)))
ap.add_argument("--no-bench", action="store_true")
ap.add_argument("--variants", default="")
ARGS = ap.parse_args()
RUN_STREAMS = tuple(int(v) for v in ARGS.streams.split(","))

for name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, name):
        setattr(torch._dynamo.config, name, 512)
if hasattr(torch._dynamo.config, "accumulated_recompile_limit"):
    torch._dynamo.config.accumulated_recompile_limit = 4096

# ---------------------------------------------------------------------------- our Triton kernel

# MXFP4 decode. A row's packed bytes are loaded as [BN, G, 16] (G groups of 32 values = 16 bytes, the
# group's E8M0 scale loaded as [BN, G, 1] and broadcast along the last axis, so no reshuffle of
# registers is needed); the low nibbles (even k) and high nibbles (odd k) are decoded into two separate
# [BN, BK/2] bf16 tiles, each multiplied with the matching even / odd columns of the activations, so the
# nibbles are never interleaved.
# DEQ 1, inline PTX, 4 bytes and their 4 scale bytes a call: a nibble's sign goes to bit 15 and its 3
# magnitude bits to bits 6-8 of a bf16 (the exponent's low 2 bits and the mantissa's top bit);
# multiplying by 2^126 rebiases the exponent (bf16 bias 127, E2M1 bias 1) and gives the subnormal 0.5
# right; a second bf16x2 multiply by 2^(s-127) (the scale byte shifted into a bf16 exponent) applies
# the scale. Out: $0/$1 low nibbles of bytes 0,1 / 2,3, $2/$3 high nibbles.
# DEQ 0, plain Triton: the nibble's bits placed in an fp16 (sign bit 15, magnitude bits 9-11), converted
# to fp32 and multiplied by 2^(s-127+14).
@triton.jit
def _load_fp4(we, se, rn, k0, K, swn, ssn, nmask, DEQ: tl.constexpr, BNn: tl.constexpr, BKk: tl.constexpr):
    rg = k0 // 32 + tl.arange(0, BKk // 32)
    rb = tl.arange(0, 16)
    gmask = nmask[:, None, None] & (rg[None, :, None] < K // 32)
    p = tl.load(we + rn[:, None, None] * swn + rg[None, :, None] * 16 + rb[None, None, :], mask=gmask, other=0)
    s = tl.load(se + rn[:, None, None] * ssn + rg[None, :, None], mask=gmask, other=127)
    if DEQ == 1:
        s4 = tl.broadcast_to(s, (BNn, BKk // 32, 16))
        lo, hi = tl.inline_asm_elementwise(
            asm="""
            {
            .reg .b32 t0, t1, a, b, bias, z, c0, c1;
            mov.b32 bias, 0x7e807e80;
            mov.b32 z, 0;
            prmt.b32 t0, $4, $4, 0x9180;
            prmt.b32 t1, $4, $4, 0xB3A2;
            prmt.b32 c0, $5, z, 0x4140;
            prmt.b32 c1, $5, z, 0x4342;
            shl.b32 c0, c0, 7;
            shl.b32 c1, c1, 7;
            shl.b32 a, t0, 6;
            and.b32 a, a, 0x01C001C0;
            shl.b32 b, t0, 12;
            and.b32 b, b, 0x80008000;
            or.b32 $0, a, b;
            mul.bf16x2 $0, $0, bias;
            mul.bf16x2 $0, $0, c0;
            shl.b32 a, t1, 6;
            and.b32 a, a, 0x01C001C0;
            shl.b32 b, t1, 12;
            and.b32 b, b, 0x80008000;
            or.b32 $1, a, b;
            mul.bf16x2 $1, $1, bias;
            mul.bf16x2 $1, $1, c1;
            shl.b32 a, t0, 2;
            and.b32 $2, a, 0x81C081C0;
            mul.bf16x2 $2, $2, bias;
            mul.bf16x2 $2, $2, c0;
            shl.b32 a, t1, 2;
            and.b32 $3, a, 0x81C081C0;
            mul.bf16x2 $3, $3, bias;
            mul.bf16x2 $3, $3, c1;
            }
            """,
            constraints="=r,=r,=r,=r,r,r", args=[p, s4], dtype=(tl.bfloat16, tl.bfloat16), is_pure=True, pack=4)
    else:
        sf = ((s.to(tl.int32) + 14) << 23).to(tl.float32, bitcast=True)
        q = p >> 4
        lo16 = (((p & 7).to(tl.int16) << 9) | ((p & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True)
        hi16 = (((q & 7).to(tl.int16) << 9) | ((q & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True)
        lo = (lo16.to(tl.float32) * sf).to(tl.bfloat16)
        hi = (hi16.to(tl.float32) * sf).to(tl.bfloat16)
    return lo.reshape(BNn, BKk // 2), hi.reshape(BNn, BKk // 2)


@triton.jit
def _load_fp4_g(we, se, rn, g, gv, swn, ssn, nmask, DEQ: tl.constexpr):
    """One 32-value group g of BN rows (split packing: byte b = values b and b + 16 of the group), as the
    unscaled E2M1 values of the low and high nibbles [BN, 16] bf16 and the group's scale [BN] fp32."""
    rb = tl.arange(0, 16)
    m = nmask & gv
    p = tl.load(we + rn[:, None] * swn + g * 16 + rb[None, :], mask=m[:, None], other=0)
    s = tl.load(se + rn * ssn + g, mask=m, other=127).to(tl.int32)
    if DEQ == 1:
        lo, hi = tl.inline_asm_elementwise(
            asm="""
            {
            .reg .b32 t0, t1, a, b, bias;
            mov.b32 bias, 0x7e807e80;
            prmt.b32 t0, $4, $4, 0x9180;
            prmt.b32 t1, $4, $4, 0xB3A2;
            shl.b32 a, t0, 6;
            and.b32 a, a, 0x01C001C0;
            shl.b32 b, t0, 12;
            and.b32 b, b, 0x80008000;
            or.b32 $0, a, b;
            mul.bf16x2 $0, $0, bias;
            shl.b32 a, t1, 6;
            and.b32 a, a, 0x01C001C0;
            shl.b32 b, t1, 12;
            and.b32 b, b, 0x80008000;
            or.b32 $1, a, b;
            mul.bf16x2 $1, $1, bias;
            shl.b32 a, t0, 2;
            and.b32 $2, a, 0x81C081C0;
            mul.bf16x2 $2, $2, bias;
            shl.b32 a, t1, 2;
            and.b32 $3, a, 0x81C081C0;
            mul.bf16x2 $3, $3, bias;
            }
            """,
            constraints="=r,=r,=r,=r,r", args=[p], dtype=(tl.bfloat16, tl.bfloat16), is_pure=True, pack=4)
        sf = (s << 23).to(tl.float32, bitcast=True)
    else:
        q = p >> 4
        lo = (((p & 7).to(tl.int16) << 9) | ((p & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True).to(tl.bfloat16)
        hi = (((q & 7).to(tl.int16) << 9) | ((q & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True).to(tl.bfloat16)
        sf = ((s + 14) << 23).to(tl.float32, bitcast=True)
    return lo, hi, sf


@triton.jit
def _load_w(we, rn, k0, K, swn, nmask, BNn: tl.constexpr, BKk: tl.constexpr):
    rk = k0 + tl.arange(0, BKk)
    w = tl.load(we + rn[:, None] * swn + rk[None, :], mask=nmask[:, None] & (rk[None, :] < K), other=0.0)
    return w.to(tl.bfloat16)


@triton.jit
def _moe_gemm(x_ptr, w_ptr, s_ptr, y_ptr, offs_ptr, K, NOUT, ldx, ldy, swe, swn, sse, ssn,
              FMT: tl.constexpr, ACT: tl.constexpr, DEQ: tl.constexpr, VAR: tl.constexpr,
              BMm: tl.constexpr, BNn: tl.constexpr, BKk: tl.constexpr):
    """y[r, n] for the rows r of expert e (offs[e] <= r < offs[e+1]): x[r, :] . W_e[n, :] (ACT 0), or
    act(x[r] . W_e[n], x[r] . W_e[NOUT + n]) (ACT 1: silu gate * up, ACT 2: gpt-oss clamped swiglu).
    FMT 0: bf16 W (E, rows, K); 1: fp8 e4m3 W + fp32 scale a row (E, rows); 2: MXFP4 W packed (E, rows, K/2)
    uint8 + E8M0 scales (E, rows, K/32) uint8."""
    e = tl.program_id(0)
    pn = tl.program_id(1)
    start = tl.load(offs_ptr + e)
    end = tl.load(offs_ptr + e + 1)
    rn = pn * BNn + tl.arange(0, BNn)
    nmask = rn < NOUT
    we = w_ptr + e.to(tl.int64) * swe
    se = s_ptr + e.to(tl.int64) * sse
    for m0 in range(start, end, BMm):
        rm = m0 + tl.arange(0, BMm)
        mmask = rm < end
        acc = tl.zeros((BNn, BMm), dtype=tl.float32)
        acc2 = tl.zeros((BNn, BMm), dtype=tl.float32)
        for k0 in range(0, K, BKk):
            if FMT == 2:
                if VAR == 2:
                    for gi in tl.static_range(BKk // 32):
                        g = k0 // 32 + gi
                        gv = g < K // 32
                        rb = tl.arange(0, 16)
                        xe = tl.load(x_ptr + rm[None, :] * ldx + g * 32 + rb[:, None], mask=mmask[None, :] & gv, other=0.0)
                        xo = tl.load(x_ptr + rm[None, :] * ldx + g * 32 + 16 + rb[:, None], mask=mmask[None, :] & gv,
                                     other=0.0)
                        wl, wh, sf = _load_fp4_g(we, se, rn, g, gv, swn, ssn, nmask, DEQ)
                        part = tl.dot(wl, xe)
                        part = tl.dot(wh, xo, part)
                        acc += part * sf[:, None]
                        if ACT != 0:
                            wl2, wh2, sf2 = _load_fp4_g(we, se, rn + NOUT, g, gv, swn, ssn, nmask, DEQ)
                            part2 = tl.dot(wl2, xe)
                            part2 = tl.dot(wh2, xo, part2)
                            acc2 += part2 * sf2[:, None]
                else:
                    rj = tl.arange(0, BKk // 2)
                    if VAR == 1:  # split packing: low nibbles are values 0-15 of a group, high nibbles 16-31
                        ke = k0 + (rj // 16) * 32 + (rj % 16)
                        ko = ke + 16
                    else:  # interleaved packing: byte j = values 2j (low nibble), 2j + 1 (high nibble)
                        ke = k0 + 2 * rj
                        ko = ke + 1
                    xm = mmask[None, :] & (ke[:, None] < K)
                    xe = tl.load(x_ptr + rm[None, :] * ldx + ke[:, None], mask=xm, other=0.0)
                    xo = tl.load(x_ptr + rm[None, :] * ldx + ko[:, None], mask=xm, other=0.0)
                    wl, wh = _load_fp4(we, se, rn, k0, K, swn, ssn, nmask, DEQ, BNn, BKk)
                    acc = tl.dot(wl, xe, acc)
                    acc = tl.dot(wh, xo, acc)
                    if ACT != 0:
                        wl2, wh2 = _load_fp4(we, se, rn + NOUT, k0, K, swn, ssn, nmask, DEQ, BNn, BKk)
                        acc2 = tl.dot(wl2, xe, acc2)
                        acc2 = tl.dot(wh2, xo, acc2)
            else:
                rk = k0 + tl.arange(0, BKk)
                xt = tl.load(x_ptr + rm[None, :] * ldx + rk[:, None], mask=mmask[None, :] & (rk[:, None] < K), other=0.0)
                w = _load_w(we, rn, k0, K, swn, nmask, BNn, BKk)
                acc = tl.dot(w, xt, acc)
                if ACT != 0:
                    w2 = _load_w(we, rn + NOUT, k0, K, swn, nmask, BNn, BKk)
                    acc2 = tl.dot(w2, xt, acc2)
        if FMT == 1:
            acc = acc * tl.load(se + rn * ssn, mask=nmask, other=0.0)[:, None]
            if ACT != 0:
                acc2 = acc2 * tl.load(se + (rn + NOUT) * ssn, mask=nmask, other=0.0)[:, None]
        if ACT == 1:
            out = acc / (1.0 + tl.exp(-acc)) * acc2
        elif ACT == 2:
            g = tl.minimum(acc, 7.0)
            u = tl.minimum(tl.maximum(acc2, -7.0), 7.0)
            out = g / (1.0 + tl.exp(-1.702 * g)) * (u + 1.0)
        else:
            out = acc
        tl.store(y_ptr + rm[None, :] * ldy + rn[:, None], out.to(tl.bfloat16), mask=nmask[:, None] & mmask[None, :])


@triton.jit
def _deq_g32(we, se, rn, rg, gm, swn, ssn, nmask, rb):
    """[BN, G, 16] fp32 values of the low / high nibbles of G whole groups (split packing), scaled."""
    m3 = nmask[:, None, None] & gm[None, :, None]
    p = tl.load(we + rn[:, None, None] * swn + rg[None, :, None] * 16 + rb[None, None, :], mask=m3, other=0)
    s = tl.load(se + rn[:, None, None] * ssn + rg[None, :, None], mask=m3, other=127)
    sf = ((s.to(tl.int32) + 14) << 23).to(tl.float32, bitcast=True)
    q = p >> 4
    lo = (((p & 7).to(tl.int16) << 9) | ((p & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True).to(tl.float32) * sf
    hi = (((q & 7).to(tl.int16) << 9) | ((q & 8).to(tl.int16) << 12)).to(tl.float16, bitcast=True).to(tl.float32) * sf
    return lo, hi


@triton.jit
def _moe_gemv(x_ptr, w_ptr, s_ptr, y_ptr, offs_ptr, K, NOUT, ldx, ldy, swe, swn, sse, ssn,
              ACT: tl.constexpr, EL: tl.constexpr, BNn: tl.constexpr, BKk: tl.constexpr):
    """MXFP4 variant 3: no tensor cores. Each program takes BN output rows of one expert and, row by row of
    its tokens, accumulates weight x activation products on the CUDA cores in fp32 ([BN, G, 16] partial
    sums, reduced once at the end); for the one or two tokens an expert gets at small N. The grid's first
    axis is min(experts, pairs): program i takes the i-th expert that has tokens (found from the offsets),
    so no programs are launched for the many idle experts."""
    pe = tl.program_id(0)
    pn = tl.program_id(1)
    ie = tl.arange(0, EL)
    busy = (tl.load(offs_ptr + ie + 1) > tl.load(offs_ptr + ie)).to(tl.int32)
    hit = (busy == 1) & (tl.cumsum(busy, 0) == pe + 1)
    e = tl.sum(tl.where(hit, ie, 0), 0)
    found = tl.sum(hit.to(tl.int32), 0)
    start = tl.load(offs_ptr + e)
    end = tl.load(offs_ptr + e + 1)
    end = tl.where(found > 0, end, start)
    rn = pn * BNn + tl.arange(0, BNn)
    nmask = rn < NOUT
    we = w_ptr + e.to(tl.int64) * swe
    se = s_ptr + e.to(tl.int64) * sse
    rb = tl.arange(0, 16)
    rgl = tl.arange(0, BKk // 32)
    for r in range(start, end):
        acc = tl.zeros((BNn, BKk // 32, 16), dtype=tl.float32)
        acc2 = tl.zeros((BNn, BKk // 32, 16), dtype=tl.float32)
        for k0 in range(0, K, BKk):
            rg = k0 // 32 + rgl
            gm = rg < K // 32
            xp = x_ptr + r * ldx + rg[:, None] * 32 + rb[None, :]
            xe = tl.load(xp, mask=gm[:, None], other=0.0).to(tl.float32)[None, :, :]
            xo = tl.load(xp + 16, mask=gm[:, None], other=0.0).to(tl.float32)[None, :, :]
            lo, hi = _deq_g32(we, se, rn, rg, gm, swn, ssn, nmask, rb)
            acc += lo * xe + hi * xo
            if ACT != 0:
                lo2, hi2 = _deq_g32(we, se, rn + NOUT, rg, gm, swn, ssn, nmask, rb)
                acc2 += lo2 * xe + hi2 * xo
        a1 = tl.sum(tl.sum(acc, 2), 1)
        if ACT == 1:
            a2 = tl.sum(tl.sum(acc2, 2), 1)
            out = a1 / (1.0 + tl.exp(-a1)) * a2
        elif ACT == 2:
            a2 = tl.sum(tl.sum(acc2, 2), 1)
            g = tl.minimum(a1, 7.0)
            u = tl.minimum(tl.maximum(a2, -7.0), 7.0)
            out = g / (1.0 + tl.exp(-1.702 * g)) * (u + 1.0)
        else:
            out = a1
        tl.store(y_ptr + r * ldy + rn, out.to(tl.bfloat16), mask=nmask)


# MXFP4 kernel variants (VAR, DEQ): VAR 0 interleaved packing, [BN, BK/2] tiles, strided activations;
# VAR 1 split packing, same tiles, activations in runs of 16; VAR 2 split packing, one 32-value group
# at a time ([BN, 16] tiles, K=16 products, the scale applied to the fp32 partial product). DEQ 1 inline
# PTX decoder, 0 plain Triton; VAR 3 (_moe_gemv) split packing, no tensor cores, plain decoder.
# Chosen at startup by check and timing, one for N <= 8 and one for N > 8. (A first full run had only
# variants 0-2; 0 and 1 were 2-2.5x slower than 2 and are left out by default: --variants.)
VARIANTS = [(2, 1), (2, 0), (3, 0)]
KSEL = {"small": (2, 1), "large": (2, 1)}
FMT_ID = {"bf16-ours": 0, "fp8": 1, "mxfp4": 2}


if ARGS.variants:
    VARIANTS[:] = [tuple(int(a) for a in v.split("-")) for v in ARGS.variants.split(",")]


def vname(v):
    return "var%d-%s" % (v[0], "asm" if v[1] else "plain")


def variant_for(n):
    return KSEL["small" if n <= 8 else "large"]


def moe_gemm(x, w, s, y, offs0, k, nout, fmt, act, el, n):
    f = FMT_ID[fmt]
    var, deq = variant_for(n) if f == 2 else (0, 0)
    if s is None:
        s = w
        sse, ssn = 0, 0
    else:
        sse, ssn = s.stride(0), (s.stride(1) if s.dim() > 1 else 1)
    if f == 2 and var == 3:
        _moe_gemv[(min(el, x.shape[0]), triton.cdiv(nout, 16))](
            x, w, s, y, offs0, k, nout, x.stride(0), y.stride(0), w.stride(0), w.stride(1), sse, ssn,
            ACT=act, EL=el, BNn=16, BKk=512, num_warps=4)
        return
    grid = (el, triton.cdiv(nout, BN))
    _moe_gemm[grid](x, w, s, y, offs0, k, nout, x.stride(0), y.stride(0), w.stride(0), w.stride(1), sse, ssn,
                    FMT=f, ACT=act, DEQ=deq, VAR=var, BMm=BM, BNn=BN, BKk=BK[f], num_warps=4, num_stages=3)


# ---------------------------------------------------------------------------- the model's pieces

def attention_half(x, wqkv, wo, kc, vc, nh, nkv, HD):
    n = x.shape[0]
    qkv = F.rms_norm(x, (x.shape[-1],), eps=1e-6) @ wqkv
    q = qkv[:, : nh * HD].view(n, nh, 1, HD)
    kc[:, :, -1:, :].copy_(qkv[:, nh * HD : (nh + nkv) * HD].view(n, nkv, 1, HD))
    vc[:, :, -1:, :].copy_(qkv[:, (nh + nkv) * HD :].view(n, nkv, 1, HD))
    a = F.scaled_dot_product_attention(q, kc, vc, enable_gqa=nh != nkv)
    return a.reshape(n, nh * HD) @ wo


def route(x, wr, k, e0, el, kind):
    """Router and the sort of token-expert pairs by (local) expert; non-local pairs go last."""
    h = F.rms_norm(x, (x.shape[-1],), eps=1e-6)
    logits = (h @ wr).float()
    if kind == "topk_then_softmax":
        w, ids = torch.topk(logits, k)
        w = torch.softmax(w, -1)
    else:
        p = torch.softmax(logits, -1)
        w, ids = torch.topk(p, k)
        w = w / w.sum(-1, keepdim=True)
    flat = ids.reshape(-1)
    local = (flat >= e0) & (flat < e0 + el)
    key = torch.where(local, flat - e0, torch.full_like(flat, el))
    order = torch.argsort(key)
    counts = (key.unsqueeze(1) == torch.arange(el, device=x.device).unsqueeze(0)).sum(0)
    offs = counts.cumsum(0).to(torch.int32)
    offs0 = F.pad(offs, (1, 0))
    tok = order // k
    return h[tok], offs, offs0, tok, (w.reshape(-1)[order]).to(x.dtype), local[order]


def act(gu, i, kind):
    if kind == 2:
        g = gu[:, :i].clamp(max=7.0)
        u = gu[:, i:].clamp(-7.0, 7.0)
        return g * torch.sigmoid(1.702 * g) * (u + 1)
    return F.silu(gu[:, :i]) * gu[:, i:]


def combine(y, wsorted, lsorted, tok, n):
    y = torch.where(lsorted.unsqueeze(1), y * wsorted.unsqueeze(1), torch.zeros_like(y))
    return torch.zeros(n, y.shape[1], device=y.device, dtype=y.dtype).index_add_(0, tok, y)


ATT_C = torch.compile(attention_half, dynamic=False)
ROUTE_C = torch.compile(route, dynamic=False)
ACT_C = torch.compile(act, dynamic=False)
COMBINE_C = torch.compile(combine, dynamic=False)


class Cfg:
    def __init__(self, model, fmt, d, rank):
        s = SHAPES[model]
        self.model, self.fmt, self.s, self.d = model, fmt, s, d
        self.H, self.I, self.HD, self.L = s["hidden"], s["expert_mlp"], s["head_dim"], s["layers"]
        self.E, self.K = s["experts"], s["active"]
        self.nh, self.nkv, self.el = s["heads"] // d, max(s["kv_heads"] // d, 1), s["experts"] // d
        self.e0 = (rank if d > 1 else 0) * self.el
        self.win = s["sliding_window"]
        self.rkind = s["router"]
        self.akind = 2 if model.startswith("gpt-oss") else 1


def experts(x, p, c, fmt=None):
    fmt = fmt or c.fmt
    xs, offs, offs0, tok, ws, ls = ROUTE_C(x, p["wr"], c.K, c.e0, c.el, c.rkind)
    if fmt == "bf16":
        gu = torch._grouped_mm(xs, p["w13"].transpose(-2, -1), offs=offs)
        a = ACT_C(gu, c.I, c.akind)
        y = torch._grouped_mm(a, p["w2"].transpose(-2, -1), offs=offs)
    else:
        pairs = xs.shape[0]
        a = torch.empty(pairs, c.I, device=x.device, dtype=dt)
        moe_gemm(xs, p["w13"], p.get("s13"), a, offs0, c.H, c.I, fmt, c.akind, c.el, x.shape[0])
        y = torch.empty(pairs, c.H, device=x.device, dtype=dt)
        moe_gemm(a, p["w2"], p.get("s2"), y, offs0, c.I, c.H, fmt, 0, c.el, x.shape[0])
    return COMBINE_C(y, ws, ls, tok, x.shape[0])


FP4_LUT = None


def dequant(p, c, var=0):
    """The layer's expert weights as bf16 (el, 2I, H) and (el, H, I), expert by expert (MXFP4: in the
    nibble order of kernel variant var)."""
    global FP4_LUT
    if FP4_LUT is None:
        FP4_LUT = torch.tensor([0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6], device=dev)
    if c.fmt in ("bf16", "bf16-ours"):
        return p["w13"], p["w2"]
    outs = []
    for wn, sn, rows, kk in (("w13", "s13", 2 * c.I, c.H), ("w2", "s2", c.H, c.I)):
        o = torch.empty(c.el, rows, kk, device=dev, dtype=dt)
        for e in range(c.el):
            if c.fmt == "fp8":
                o[e] = (p[wn][e].float() * p[sn][e].unsqueeze(1)).to(dt)
            else:
                q = p[wn][e]
                if var == 0:  # interleaved: byte j = values 2j, 2j + 1
                    codes = torch.stack((q & 15, q >> 4), -1).flatten(-2).long()
                else:  # split: byte b of a group = values b, b + 16
                    g = q.reshape(q.shape[0], -1, 16)
                    codes = torch.cat((g & 15, g >> 4), -1).flatten(-2).long()
                sc = torch.exp2(p[sn][e].float() - 127).repeat_interleave(32, -1)
                o[e] = (FP4_LUT[codes] * sc).to(dt)
        outs.append(o)
    return outs


def reference_loop(x, p, c):  # loop over experts, eager, bf16 weights (measure_moe_decode.py's check)
    h = F.rms_norm(x, (x.shape[-1],), eps=1e-6)
    logits = (h @ p["wr"]).float()
    if c.rkind == "topk_then_softmax":
        w, ids = torch.topk(logits, c.K)
        w = torch.softmax(w, -1).to(x.dtype)
    else:
        pr = torch.softmax(logits, -1)
        w, ids = torch.topk(pr, c.K)
        w = (w / w.sum(-1, keepdim=True)).to(x.dtype)
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        for j in range(c.K):
            e = int(ids[t, j])
            if c.e0 <= e < c.e0 + c.el:
                gu = h[t : t + 1] @ p["w13"][e - c.e0].t()
                out[t] += (act(gu, c.I, c.akind) @ p["w2"][e - c.e0].t())[0] * w[t, j]
    return out


def check(x, p, c):
    got = experts(x, p, c).float()
    if c.fmt == "bf16":
        ref = reference_loop(x, p, c).float()
        name = "grouped_vs_loop_rel_err"
    else:
        w13, w2 = dequant(p, c, variant_for(x.shape[0])[0])
        ref = experts(x, dict(p, w13=w13, w2=w2), c, fmt="bf16").float()
        del w13, w2
        name = "dequant_ref_rel_err"
    return name, float((got - ref).abs().max() / (ref.abs().max() + 1e-9))


def make_layer(c, shared):
    g = lambda *sh: torch.randn(*sh, device=dev, dtype=dt) * 0.02  # noqa: E731
    p = dict(wqkv=g(c.H, (c.nh + 2 * c.nkv) * c.HD), wo=g(c.nh * c.HD, c.H),
             wr=(torch.randn(c.H, c.E, device=dev, dtype=dt, generator=shared) * 0.02))
    for wn, sn, rows, kk in (("w13", "s13", 2 * c.I, c.H), ("w2", "s2", c.H, c.I)):
        if c.fmt in ("bf16", "bf16-ours"):
            p[wn] = g(c.el, rows, kk)
        elif c.fmt == "fp8":
            w = torch.empty(c.el, rows, kk, device=dev, dtype=torch.float8_e4m3fn)
            for e0 in range(0, c.el, 16):
                w[e0 : e0 + 16] = torch.randn(min(16, c.el - e0), rows, kk, device=dev).to(torch.float8_e4m3fn)
            p[wn] = w
            p[sn] = torch.full((c.el, rows), 0.02, device=dev, dtype=torch.float32)
        else:  # mxfp4: random codes; exponents 2^-8..2^-5 so values are about the bf16 weights' size
            p[wn] = torch.randint(0, 256, (c.el, rows, kk // 2), device=dev, dtype=torch.uint8)
            p[sn] = torch.randint(119, 123, (c.el, rows, kk // 32), device=dev, dtype=torch.uint8)
    return p


def pool_count(c):
    per = model_weight_bytes(c.s, c.fmt, c.d) / c.L
    free = torch.cuda.mem_get_info()[0]
    n = min(POOL, c.L)
    while n > 2 and n * per > 0.6 * free:
        n -= 2
    return n


def kv_for(c, n, count):
    kvs = []
    for j in range(count):
        ctx = c.win if (c.win and j % 2 == 0) else CONTEXT
        kvs.append((torch.randn(n, c.nkv, ctx, c.HD, device=dev, dtype=dt) * 0.02,
                    torch.randn(n, c.nkv, ctx, c.HD, device=dev, dtype=dt) * 0.02))
    return kvs


def step(pool, kvs, x, c, group):
    for j in range(c.L):
        p, (kc, vc) = pool[j % len(pool)], kvs[j % len(pool)]
        o = ATT_C(x, p["wqkv"], p["wo"], kc, vc, c.nh, c.nkv, c.HD)
        if group is not None:
            dist.all_reduce(o, group=group)
        x = x + o
        m = experts(x, p, c)
        if group is not None:
            dist.all_reduce(m, group=group)
        x = x + m
    return x


def graph_time(fn, group=None, rank=0):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
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
    del graph
    return statistics.median(times)


def measure(c, pool, n, rank, group, t0):
    shared = torch.Generator(device=dev)
    shared.manual_seed(1234 + n)
    x = torch.randn(n, c.H, device=dev, dtype=dt, generator=shared)
    kvs = kv_for(c, n, len(pool))
    chk = None
    if n == 8:
        chk = check(x, pool[0], c)
    with torch.no_grad():
        ids = torch.topk((F.rms_norm(x, (c.H,), eps=1e-6) @ pool[0]["wr"]).float(), c.K).indices
        seen = int(torch.unique(ids[(ids >= c.e0) & (ids < c.e0 + c.el)]).numel())
    t = graph_time(lambda: step(pool, kvs, x, c, group), group, rank)
    del kvs
    bpg, touched = step_bytes(c.s, c.fmt, c.d, n)
    r = {"model": c.model, "format": c.fmt, "layout": "1gpu" if c.d == 1 else "ep2", "gpus": c.d, "streams": n,
         "step_ms": round(t * 1e3, 4), "layer_ms": round(t / c.L * 1e3, 5),
         "per_stream_tokens_per_s": round(1 / t, 1), "tokens_per_s": round(n / t, 1),
         "expert_kernel": "torch._grouped_mm" if c.fmt == "bf16" else
         "ours (_moe_gemm, Triton, %s)" % ({0: "bf16", 1: "fp8 W8A16", 2: "mxfp4 W4A16 " + vname(variant_for(n))}[
             FMT_ID[c.fmt]]),
         "bytes_per_gpu_gb": round(bpg / 1e9, 3), "bytes_per_step_gb": round(bpg * c.d / 1e9, 3),
         "tb_s_per_gpu": round(bpg / t / 1e12, 3), "experts_touched_per_gpu_layer_expected": round(touched, 2),
         "experts_touched_first_layer": seen, "pool_layers": len(pool),
         "full_model_weights_gb_per_gpu": round(model_weight_bytes(c.s, c.fmt, c.d) / 1e9, 1),
         "gpu_index": rank, "elapsed_s": round(time.time() - t0, 1)}
    if chk is not None:
        r[chk[0]] = round(chk[1], 5)
    return r


def run_block(model, fmt, d, streams, rank, group, t0, deadline, err):
    """One (shape, format, layout): the pool once, then each N. Returns the results of this rank."""
    res = []
    c = Cfg(model, fmt, d, rank)
    shared = torch.Generator(device=dev)
    shared.manual_seed(1234)
    torch.manual_seed(rank + 7)
    count = pool_count(c)
    if group is not None:  # same count on both GPUs
        tc = torch.tensor([count], device=dev)
        dist.all_reduce(tc, op=dist.ReduceOp.MIN, group=group)
        count = int(tc.item())
    pool, ok = None, torch.tensor([1.0], device=dev)
    try:
        pool = [make_layer(c, shared) for _ in range(count)]
    except Exception:  # noqa: BLE001
        ok[0] = 0.0
        err.append({"model": model, "format": fmt, "layout": "1gpu" if d == 1 else "ep2", "streams": None,
                    "rank": rank, "error": traceback.format_exc()[-3000:]})
        print(err[-1]["error"], file=sys.stderr, flush=True)
    if group is not None:
        dist.all_reduce(ok, op=dist.ReduceOp.MIN, group=group)
    if ok.item() == 0.0:
        del pool
        torch.cuda.empty_cache()
        return res
    for n in streams:
        go = time.time() - t0 < deadline
        if group is not None:
            g = torch.tensor([1.0 if go else 0.0], device=dev)
            dist.broadcast(g, 0, group=group)
            go = g.item() == 1.0
        if not go:
            continue
        ok = torch.tensor([1.0], device=dev)
        try:
            r = measure(c, pool, n, rank, group, t0)
            res.append(r)
            print(r, file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001
            ok[0] = 0.0
            err.append({"model": model, "format": fmt, "layout": "1gpu" if d == 1 else "ep2", "streams": n,
                        "rank": rank, "error": traceback.format_exc()[-3000:]})
            print(err[-1]["error"], file=sys.stderr, flush=True)
        if group is not None:
            dist.all_reduce(ok, group=group)
        torch.cuda.empty_cache()
    del pool
    torch.cuda.empty_cache()
    return res


def select_decoder(out):
    """Checks every MXFP4 kernel variant and times one gpt-oss layer's experts at N=1 and 64 with each (and
    with the other formats' kernels); picks the fastest correct variant for N <= 8 and for N > 8."""
    sel, bench = {}, []
    layers = 4  # distinct layers cycled in one graph so the few experts of N=1 do not stay in L2
    run_fmts = {b.split(":")[1] for b in ARGS.blocks.split(",")}
    for fmt in ["mxfp4"] + [f for f in ("fp8", "bf16-ours", "bf16") if f in run_fmts]:
        c = Cfg("gpt-oss-120b", fmt, 1, 0)
        shared = torch.Generator(device=dev)
        shared.manual_seed(99)
        pool = [make_layer(c, shared) for _ in range(layers)]
        for v in (VARIANTS if fmt == "mxfp4" else [None]):
            if v is not None:
                KSEL["small"] = KSEL["large"] = v
            entry = {}
            try:
                x8 = torch.randn(8, c.H, device=dev, dtype=dt, generator=shared)
                if fmt != "bf16":
                    entry["rel_err"] = round(check(x8, pool[0], c)[1], 5)
                for n in (1, 64):
                    x = torch.randn(n, c.H, device=dev, dtype=dt, generator=shared)
                    t = graph_time(lambda: [experts(x, p, c) for p in pool]) / layers
                    b = c.E * (1 - (1 - c.K / c.E) ** n) * expert_bytes(c.s, fmt)
                    entry["ms_n%d" % n] = round(t * 1e3, 4)
                    bench.append({"model": c.model, "format": fmt, "variant": vname(v) if v else None,
                                  "streams": n, "experts_ms": round(t * 1e3, 4),
                                  "expert_bytes_gb": round(b / 1e9, 4), "tb_s": round(b / t / 1e12, 3)})
            except Exception:  # noqa: BLE001
                tb = traceback.format_exc()
                entry["error"] = tb[:2000] + " ... " + tb[-1500:]
            if v is not None:
                sel[vname(v)] = entry
            print(fmt, v, entry, file=sys.stderr, flush=True)
        del pool
        torch.cuda.empty_cache()
        if fmt == "mxfp4":
            ok = [v for v in VARIANTS if sel[vname(v)].get("rel_err", 1) < 0.03 and "ms_n64" in sel[vname(v)]]
            if ok:
                KSEL["small"] = min(ok, key=lambda v: sel[vname(v)]["ms_n1"])
                KSEL["large"] = min(ok, key=lambda v: sel[vname(v)]["ms_n64"])
            else:
                KSEL["small"] = KSEL["large"] = (0, 0)
            sel["chosen_small_n"] = vname(KSEL["small"])
            sel["chosen_large_n"] = vname(KSEL["large"])
    out["dequant_selection"] = sel
    out["kernel_bench"] = {"what": "one gpt-oss-120b layer's experts alone (router, two expert GEMMs, combine), "
                                   "1 GPU, CUDA graph of 4 distinct layers; expert bytes = expected experts "
                                   "touched x bytes an expert", "results": bench}


def main():
    t0 = time.time()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank), timeout=datetime.timedelta(seconds=300))
    g2 = dist.new_group([0, 1]) if world >= 2 else None
    out = {"gpu": torch.cuda.get_device_name(0), "gpus": world, "torch": torch.__version__,
           "triton": triton.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "context": CONTEXT, "shapes": SHAPES,
           "formats": {"bf16": "torch._grouped_mm", "bf16-ours": "our Triton kernel _moe_gemm on bf16 weights",
                       "fp8": "e4m3, fp32 scale per output row; our Triton kernel _moe_gemm (W8A16)",
                       "mxfp4": "E2M1 + E8M0 scale per 32 (4.25 bits); our Triton kernel _moe_gemm (W4A16)"},
           "kernels": "attention: torch.compile + SDPA; router/combine: torch.compile; experts: see formats",
           "scope": "layers only: no embedding, no LM head, no sampling; gpt-oss attention sinks and biases ignored",
           "method": "whole model one CUDA graph (POOL distinct layers cycled); median of %d runs of %d replays"
                     % (REPS, ITERS), "pool_layers": POOL, "results": [], "errors": []}

    def dump():
        if rank == 0 and ARGS.out:
            with open(ARGS.out, "w") as f:
                json.dump(out, f, indent=1)

    if not ARGS.no_bench:
        if rank == 0:
            try:
                select_decoder(out)
            except Exception:  # noqa: BLE001
                out["errors"].append({"model": "bench", "error": traceback.format_exc()[-3000:]})
                print(out["errors"][-1]["error"], file=sys.stderr, flush=True)
        mode = torch.tensor(list(KSEL["small"]) + list(KSEL["large"]), device=dev)
        dist.broadcast(mode, 0)
        KSEL["small"], KSEL["large"] = tuple(mode[:2].tolist()), tuple(mode[2:].tolist())
        dump()
    out["mxfp4_kernel_variant"] = {"streams_le_8": vname(KSEL["small"]), "streams_gt_8": vname(KSEL["large"])}

    for block in ARGS.blocks.split(","):
        model, fmt = block.split(":")
        for layout, d in (("1gpu", 1), ("ep2", 2)):
            if d > world:
                continue
            go = torch.tensor([1.0 if time.time() - t0 < ARGS.deadline_s else 0.0], device=dev)
            dist.broadcast(go, 0)
            if go.item() == 0:
                continue
            err = []
            if d == 1:
                mine = RUN_STREAMS[rank::world] if world >= 2 else RUN_STREAMS
                res = run_block(model, fmt, 1, mine, rank, None, t0, ARGS.deadline_s, err)
                if world >= 2:
                    got = [None] * world
                    dist.all_gather_object(got, (res, err))
                    res = [r for g in got for r in g[0]]
                    err = [e for g in got for e in g[1]]
                res.sort(key=lambda r: r["streams"])
            else:
                res = run_block(model, fmt, 2, RUN_STREAMS, rank, g2, t0, ARGS.deadline_s, err)
            if rank == 0:
                out["results"].extend(res)
                out["errors"].extend(err)
                print("block %s %s done at %.0f s" % (block, layout, time.time() - t0), file=sys.stderr, flush=True)
            dump()
    dump()
    if rank == 0 and not ARGS.out:
        print(json.dumps(out, indent=1))
    dist.barrier(device_ids=[rank])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
