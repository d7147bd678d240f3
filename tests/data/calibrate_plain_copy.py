# The reference `meshplan calibrate`'s GPU memory bandwidth is checked against: a plain copy
# kernel (torch's dst.copy_(src) on 1 GiB), timed with CUDA events, counted as bytes read and
# written (2 x the buffer) over the time; the best and the median of 20 copies. Run on the same
# machine, in the same session, as the calibrate script (tests/data/calibrate_device_*.txt).
import statistics

import torch

size = 1 << 30
src = torch.ones(size // 4, dtype=torch.float32, device="cuda")
dst = torch.empty_like(src)
for _ in range(3):
    dst.copy_(src)
torch.cuda.synchronize()
times = []
for _ in range(20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    dst.copy_(src)
    end.record()
    end.synchronize()
    times.append(start.elapsed_time(end) / 1e3)
print("device=%s" % torch.cuda.get_device_name(0))
print("torch=%s cuda=%s" % (torch.__version__, torch.version.cuda))
print("plain_copy_Bps=%.6g" % (2.0 * size / min(times)))
print("plain_copy_median_Bps=%.6g" % (2.0 * size / statistics.median(times)))
