# SPDX-License-Identifier: MIT
# relu_chain_plus_one: relu_chain's own code as ModelNew with steps + 1 trips:
# one trip more than the problem's 32, 1/32 more work, a speedup of
# about 0.97 by construction, inside the 5% tie margin. Expect EQUIVALENT.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.steps = steps + 1

    def forward(self, x):
        for _ in range(self.steps):
            x = torch.relu(x)
        return x
