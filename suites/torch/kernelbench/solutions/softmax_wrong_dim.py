# SPDX-License-Identifier: MIT
# softmax_wrong_dim: a wrong candidate of softmax_eager: the softmax is taken over the
# batch (dim 0) instead of each row. Expect INCORRECT_NUMERICAL.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=0)
