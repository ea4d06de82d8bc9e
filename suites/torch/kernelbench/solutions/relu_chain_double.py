# SPDX-License-Identifier: MIT
# relu_chain_double: relu_chain's own code as ModelNew with 2 * steps trips:
# twice the problem's trips. Expect SLOWER (and the problem FASTER
# than it).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.steps = 2 * steps

    def forward(self, x):
        for _ in range(self.steps):
            x = torch.relu(x)
        return x
