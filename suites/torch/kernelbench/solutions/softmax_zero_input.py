# SPDX-License-Identifier: MIT
# softmax_zero_input: KernelBench's zeroed-inputs idea, written afresh: zeroes its input
# in place and returns the softmax of zeros (a constant 1/dim), which a
# judge that ran the reference on the same tensors afterwards would accept.
# nodus's inputs are read-only. Expect INPUT_MUTATED.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x.zero_()
        return torch.softmax(x, dim=1)
