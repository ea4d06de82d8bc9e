# SPDX-License-Identifier: MIT
# p40_layernorm_per_sample: KernelBench level 1 problem 40 (LayerNorm over
# the last three dimensions of a 16 x 64 x 256 x 256 input) one sample at a
# time, as a loop over the batch would. torch's layer norm kernel gives each
# row one thread block: the reference runs its 16 rows side by side on 16
# SMs, this runs 16 launches of one block each, one after the other (and
# copies each result into place), so it should take roughly 16 times as
# long. Each row is normalised by the same kernel as in the reference.
# expect: SLOWER
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        for i in range(x.shape[0]):
            y[i] = F.layer_norm(x[i], self.ln.normalized_shape, self.ln.weight, self.ln.bias,
                                self.ln.eps)
        return y
