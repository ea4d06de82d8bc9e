# SPDX-License-Identifier: MIT
# relu_chain: a KernelBench-format problem written for nodus (not copied
# from KernelBench): ReLU applied `steps` times (idempotent, so any number
# of trips gives the same bits). Its candidates are this code with another
# trip count: the near-tie and the clear-cut cases of one construction.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.steps = steps

    def forward(self, x):
        for _ in range(self.steps):
            x = torch.relu(x)
        return x


rows = 64
cols = 1024
steps = 32


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [steps]
