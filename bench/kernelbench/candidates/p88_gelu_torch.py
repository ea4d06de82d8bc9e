# SPDX-License-Identifier: MIT
# p88_gelu_torch: KernelBench level 1 problem 88 (minGPT's tanh GELU of an
# 8192 x 8192 float32 input). The reference spells the formula out in
# eager torch: about eight elementwise kernels (pow, two scalings, two adds,
# tanh, two products), each reading and writing 256 MiB. torch's own GELU
# with approximate='tanh' is the same formula in one kernel, one read and
# one write: several times faster, same values to a few ulp.
# expect: FASTER
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")
