# SPDX-License-Identifier: MIT
# vector_scale_torch: suites/cuda's vector_scale (y = alpha * x) in torch on
# cuda, destination-passing: x [n], alpha (a 0-d tensor) and y [n] are cuda
# tensors over nodus's own device buffers; the call runs on nodus's stream.
import torch


def run(x, alpha, y):
    torch.mul(x, alpha, out=y)
