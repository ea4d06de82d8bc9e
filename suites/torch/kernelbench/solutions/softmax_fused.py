# SPDX-License-Identifier: MIT
# softmax_fused: a candidate of softmax_eager (written for nodus): torch.softmax, one
# fused ATen kernel for the five eager ops. Expect FASTER (and the problem
# SLOWER than it).
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)
