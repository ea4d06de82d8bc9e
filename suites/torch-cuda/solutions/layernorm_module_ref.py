# SPDX-License-Identifier: MIT
# layernorm_module_ref: the layernorm_module task's reference, KernelBench
# style: an nn.LayerNorm with its own weight and bias, built from the
# solution's python.init arguments (KernelBench's get_init_inputs()). nodus
# redraws both parameters after construction (docs/formats.md, "Python
# solutions"), so they are not torch's 1 and 0.
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x):
        return self.ln(x)
