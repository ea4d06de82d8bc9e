# SPDX-License-Identifier: MIT
# layernorm_module_ref: the layernorm_module task's reference, KernelBench
# style: an nn.LayerNorm with its own weight and bias. nodus redraws both
# after construction (docs/formats.md, "Python solutions"), so they are not
# torch's 1 and 0.
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(1024, eps=1e-5)

    def forward(self, x):
        return self.ln(x)
