# SPDX-License-Identifier: MIT
# softmax_eager: a KernelBench-format problem written for nodus (not copied
# from KernelBench): a row softmax spelled out as five eager torch ops (max,
# subtract, exp, sum, divide), each a pass over the tensor.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        m = x.max(dim=1, keepdim=True).values
        e = torch.exp(x - m)
        return e / e.sum(dim=1, keepdim=True)


batch_size = 128
dim = 512


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
