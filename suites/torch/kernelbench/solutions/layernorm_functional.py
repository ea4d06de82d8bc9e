# SPDX-License-Identifier: MIT
# layernorm_functional: layernorm_affine as F.layer_norm with the module's own weight
# and bias (created in nn.LayerNorm's order and shapes, so nodus gives them
# the same values). Expect EQUIVALENT.
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
        return F.layer_norm(x, (self.features,), self.weight, self.bias, 1e-5)
