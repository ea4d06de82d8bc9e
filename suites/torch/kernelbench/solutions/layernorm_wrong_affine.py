# SPDX-License-Identifier: MIT
# layernorm_wrong_affine: a wrong affine formula: (x_hat + bias) * weight instead of
# x_hat * weight + bias, written out in eager ops. At weight 1 and bias 0
# (torch's initial values) the two agree; nodus's redrawn parameters tell
# them apart. Expect INCORRECT_NUMERICAL.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))
        self.features = features

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, unbiased=False, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + 1e-5)
        return (x_hat + self.bias) * self.weight
