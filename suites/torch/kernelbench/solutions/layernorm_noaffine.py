# SPDX-License-Identifier: MIT
# layernorm_noaffine: a wrong candidate of layernorm_affine: normalises and stops,
# dropping weight and bias; exact while they are torch's 1 and 0.
# Expect INCORRECT_NUMERICAL.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.features = features

    def forward(self, x):
        return F.layer_norm(x, (self.features,), None, None, 1e-5)
