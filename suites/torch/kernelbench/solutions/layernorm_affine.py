# SPDX-License-Identifier: MIT
# layernorm_affine: a KernelBench-format problem written for nodus (not
# copied from KernelBench): nn.LayerNorm over the last dimension with its
# weight and bias. torch starts them at 1 and 0, the identity that hides a
# wrong affine formula; nodus redraws both (docs/formats.md).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x):
        return self.norm(x)


batch_size = 64
features = 512


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
