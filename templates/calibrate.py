# meshplan calibrate: bounded micro-benchmarks of this host with what it has (torch with CUDA,
# else MLX, else numpy, else torch on the CPU). Standard output carries only result lines,
# "meshplan-calibrate KEY=VALUE"; everything else a library prints goes to standard error.
# argv[1]: the seconds this may take in all (the caller also runs it under `timeout`).
import os
import signal
import statistics
import subprocess
import sys
import time

LIMIT = float(sys.argv[1]) if len(sys.argv) > 1 else 120.0
START = time.monotonic()
OUT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # a library's print() must not look like a result
CHILDREN = []
NOSYNC = lambda: None  # noqa: E731 (host code: done when it returns)


def emit(key, value):
    OUT.write("meshplan-calibrate %s=%s\n" % (key, value))
    OUT.flush()


def left():
    return LIMIT - (time.monotonic() - START)


def stop(signum, frame):
    # Nothing outlives the calibration: the all-reduce workers go with it.
    for p in CHILDREN:
        if p.poll() is None:
            p.kill()
    os._exit(124)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGALRM, stop)
signal.alarm(max(1, int(LIMIT)))


def best_time(step, sync, budget=1.0, reps=(3, 50)):
    """The fastest of repeated runs (after a warm-up): what the hardware can do."""
    step()
    sync()
    best, spent, n = float("inf"), 0.0, 0
    while n < reps[0] or (spent < min(budget, max(0.0, left() / 8)) and n < reps[1]):
        t = time.perf_counter()
        step()
        sync()
        dt = time.perf_counter() - t
        best, spent, n = min(best, dt), spent + dt, n + 1
    return best


def median_time(step, sync, count=200):
    step()
    sync()
    times = []
    for _ in range(count):
        t = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def matmul_size(product, sync, largest):
    """The square size whose product takes at least 20 ms (or the largest), so that timing it
    measures the arithmetic rather than the call."""
    n = 256
    while n < largest:
        a = product(n)
        a()  # the first call sets the library up (cuBLAS handles, kernel choice)
        sync()
        t = time.perf_counter()
        a()
        sync()
        if time.perf_counter() - t >= 0.02:
            break
        n *= 2
    return n


def pick_backend():
    try:
        import torch

        if torch.cuda.is_available():
            return "torch-cuda", torch
    except Exception:
        pass
    try:
        import mlx.core as mx

        return "mlx", mx
    except Exception:
        pass
    try:
        import numpy

        return "numpy", numpy
    except Exception:
        pass
    try:
        import torch

        return "torch-cpu", torch
    except Exception:
        pass
    return "none", None


def run_torch(torch, cuda):
    dev = "cuda" if cuda else "cpu"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    if cuda:
        emit("device", torch.cuda.get_device_name(0))
        emit("devices", torch.cuda.device_count())
    size = (1 << 30) if cuda else (256 << 20)
    src = torch.ones(size // 4, dtype=torch.float32, device=dev)
    dst = torch.empty_like(src)
    copies = 10 if cuda else 1  # a step long enough to hide the launch

    def copy():
        for _ in range(copies):
            dst.copy_(src)

    emit("copy_bytes", size)
    emit("mem_bandwidth_Bps", "%.6g" % (2.0 * size * copies / best_time(copy, sync)))
    del src, dst
    dtype = torch.float16 if cuda else torch.float32

    def product(n):
        a = torch.randn(n, n, dtype=dtype, device=dev)
        b = torch.randn(n, n, dtype=dtype, device=dev)
        return lambda: torch.mm(a, b)

    n = matmul_size(product, sync, 8192 if cuda else 2048)
    mm = product(n)
    emit("matmul_n", n)
    emit("dtype", "fp16" if cuda else "fp32")
    emit("flops", "%.6g" % (2.0 * n**3 / best_time(mm, sync)))
    del mm
    # One empty step as a pipeline stage runs it: a token's activations copied in, one kernel
    # (a CUDA graph where it can be captured), the result copied out, and a synchronisation.
    x_host = torch.zeros(8192, dtype=dtype, pin_memory=cuda)
    y_host = torch.zeros_like(x_host)
    x = torch.zeros(8192, dtype=dtype, device=dev)
    y = torch.zeros_like(x)
    kernel = lambda: y.copy_(x)  # noqa: E731
    if cuda:
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                y.copy_(x)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y.copy_(x)
            kernel = g.replay
        except Exception as e:
            emit("note", "stage step without a CUDA graph: %s" % str(e).splitlines()[0][:200])

    def step():
        x.copy_(x_host, non_blocking=cuda)
        kernel()
        y_host.copy_(y, non_blocking=cuda)

    emit("stage_overhead_ms", "%.6g" % (median_time(step, sync) * 1e3))
    if cuda:
        torch.cuda.empty_cache()
        allreduce(torch.cuda.device_count())


def run_numpy(np):
    size = 256 << 20
    src = np.ones(size // 8)
    dst = np.empty_like(src)
    emit("copy_bytes", size)
    emit("mem_bandwidth_Bps", "%.6g" % (2.0 * size / best_time(lambda: np.copyto(dst, src), NOSYNC)))
    del src, dst

    def product(n):
        a = np.random.rand(n, n).astype(np.float32)
        b = np.random.rand(n, n).astype(np.float32)
        return lambda: a @ b

    n = matmul_size(product, NOSYNC, 2048)
    emit("matmul_n", n)
    emit("dtype", "fp32")
    emit("flops", "%.6g" % (2.0 * n**3 / best_time(product(n), NOSYNC)))
    x_host, x = np.zeros(8192, np.float32), np.zeros(8192, np.float32)
    y, y_host = np.zeros_like(x), np.zeros_like(x)

    def step():
        np.copyto(x, x_host)
        np.copyto(y, x)
        np.copyto(y_host, y)

    emit("stage_overhead_ms", "%.6g" % (median_time(step, NOSYNC) * 1e3))


def run_mlx(mx):
    emit("device", mx.default_device())
    size = 1 << 30
    src = mx.ones((size // 4,), dtype=mx.float32)
    mx.eval(src)
    emit("copy_bytes", size)
    # a + 0 reads and writes every byte once, as a copy does.
    emit("mem_bandwidth_Bps", "%.6g" % (2.0 * size / best_time(lambda: mx.eval(src + 0), NOSYNC)))
    del src

    def product(n):
        a = mx.random.normal((n, n)).astype(mx.float16)
        b = mx.random.normal((n, n)).astype(mx.float16)
        mx.eval(a, b)
        return lambda: mx.eval(a @ b)

    n = matmul_size(product, NOSYNC, 8192)
    emit("matmul_n", n)
    emit("dtype", "fp16")
    emit("flops", "%.6g" % (2.0 * n**3 / best_time(product(n), NOSYNC)))
    x = mx.zeros((8192,), dtype=mx.float16)
    mx.eval(x)
    emit("stage_overhead_ms", "%.6g" % (median_time(lambda: mx.eval(x + 1), NOSYNC) * 1e3))


# One process per GPU, as an engine runs them: a one-token all-reduce (8 KiB of fp16) over NCCL,
# 20 of them captured in one CUDA graph (as engines decode), the graph replayed 30 times, each
# replay timed with CUDA events; the figure is the median replay over 20. The communicator is bound
# to its GPU at start and warmed up on a side stream before the capture, and the graph is released
# before the communicator (destroying it under a live graph never returns). Where the capture
# fails the launches are timed in a loop instead, which adds every launch ("loop").
WORKER = r"""
import signal, statistics, sys, time
rank, world, port, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
signal.alarm(max(1, int(limit)))
import torch, torch.distributed as dist
torch.cuda.set_device(rank)
init = dict(init_method="tcp://127.0.0.1:" + port, rank=rank, world_size=world)
try:
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank), **init)
except TypeError:  # a torch without device_id
    dist.init_process_group("nccl", **init)
x = torch.zeros(4096, dtype=torch.float16, device="cuda")
k = 20
def loop():
    for _ in range(k):
        dist.all_reduce(x)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        dist.all_reduce(x)
torch.cuda.current_stream().wait_stream(side)
graph, method, step = None, "loop", loop
try:
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loop()
    method, step = "graph", graph.replay
except Exception:
    graph = None
for _ in range(5):
    step()
torch.cuda.synchronize()
dist.barrier(device_ids=[rank])
ev = [torch.cuda.Event(enable_timing=True) for _ in range(31)]
ev[0].record()
for i in range(30):
    step()
    ev[i + 1].record()
torch.cuda.synchronize()
times = [ev[i].elapsed_time(ev[i + 1]) * 1e3 / k for i in range(30)]
if rank == 0:
    print("%.3f %s" % (statistics.median(times), method), flush=True)
del step, graph
dist.barrier(device_ids=[rank])
dist.destroy_process_group()
"""


def allreduce(gpus):
    if gpus < 2:
        return
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Bounded on its own, so that workers that hang leave the rest of the limit unspent.
    budget = max(1.0, min(90.0, left() - 5))
    try:
        for r in range(gpus):
            CHILDREN.append(
                subprocess.Popen(
                    [sys.executable, "-c", WORKER, str(r), str(gpus), str(port), str(budget)],
                    stdout=subprocess.PIPE if r == 0 else subprocess.DEVNULL,
                    stdin=subprocess.DEVNULL,
                    universal_newlines=True,
                )
            )
        out, _ = CHILDREN[0].communicate(timeout=budget)
        for p in CHILDREN[1:]:
            p.wait(timeout=max(1.0, left() - 2))
        fields = out.split()
        if CHILDREN[0].returncode != 0 or len(fields) != 2:
            raise RuntimeError("the NCCL workers exited with %s" % CHILDREN[0].returncode)
        emit("allreduce_gpus", gpus)
        emit("allreduce_method", fields[1])
        emit("allreduce_latency_us", "%.6g" % float(fields[0]))
    except Exception as e:
        emit("note", "NCCL all-reduce not measured: %s" % str(e).splitlines()[0][:200])
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                p.kill()
            p.wait()


backend, module = pick_backend()
emit("backend", backend)
if backend == "torch-cuda":
    run_torch(module, True)
elif backend == "torch-cpu":
    run_torch(module, False)
elif backend == "mlx":
    run_mlx(module)
elif backend == "numpy":
    run_numpy(module)
emit("end", 1)
