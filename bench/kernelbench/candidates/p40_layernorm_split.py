# SPDX-License-Identifier: MIT
# p40_layernorm_split: KernelBench level 1 problem 40 (LayerNorm over the
# last three dimensions of a 16 x 64 x 256 x 256 input). torch's layer norm
# kernel gives each row one thread block, and here there are 16 rows of
# 4M elements: 16 of the H200's 132 SMs work (about 8 ms in bench/results/
# h200/kb-46). torch.var_mean's reduction splits a long row over many
# blocks, so the statistics and three elementwise passes use the whole GPU
# (about 2.3 GiB of traffic, well under 1 ms). The module keeps the
# reference's nn.LayerNorm, so its weight and bias are created in the same
# order and shapes (nodus redraws parameters by position and shape;
# KernelBench seeds both constructions alike).
# expect: FASTER
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims = tuple(range(x.dim() - len(self.ln.normalized_shape), x.dim()))
        var, mean = torch.var_mean(x, dim=dims, unbiased=False, keepdim=True)
        xhat = (x - mean) * torch.rsqrt(var + self.ln.eps)
        return torch.addcmul(self.ln.bias, xhat, self.ln.weight)
