# SPDX-License-Identifier: MIT
# gelu_tanh_eager: a KernelBench-format problem written for nodus (not
# copied from KernelBench): GELU's tanh approximation spelled out in eager
# ops, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), about eight passes.
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + torch.tanh(inner))


rows = 128
cols = 1024


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
