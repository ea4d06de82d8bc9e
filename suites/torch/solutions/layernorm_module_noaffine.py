# SPDX-License-Identifier: MIT
# layernorm_module_noaffine: normalises but never applies its weight and
# bias. At torch's initial values (weight 1, bias 0) that is exact, so a
# harness that leaves parameters at their defaults calls it correct;
# nodus redraws them: INCORRECT_NUMERICAL.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1024))
        self.bias = nn.Parameter(torch.zeros(1024))

    def forward(self, x):
        return F.layer_norm(x, (1024,), eps=1e-5)
