# SPDX-License-Identifier: MIT
# layernorm_manual: layernorm_affine written out in eager ops (mean, biased variance,
# normalise, scale, shift), the right formula. Expect EQUIVALENT.
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
        return x_hat * self.weight + self.bias
