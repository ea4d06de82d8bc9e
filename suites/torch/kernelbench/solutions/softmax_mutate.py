# SPDX-License-Identifier: MIT
# softmax_mutate: computes the right softmax, then scales its input in place (a
# write a judge that reuses inputs would carry into the next call). Expect
# INPUT_MUTATED.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.softmax(x, dim=1)
        x.mul_(0.5)
        return y
