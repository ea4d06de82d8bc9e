# SPDX-License-Identifier: MIT
# vector_scale_side_stream: KernelBench's non-default-stream idea, written
# afresh: the work goes to a stream of its own, so events recorded on the
# harness's stream bracket nothing. It must never be FASTER: the
# stream/host-gap check (docs/guards.md) or the outputs catch it.
import torch

side = None


def run(x, alpha, y):
    global side
    if side is None:
        side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.mul(x, alpha, out=y)
