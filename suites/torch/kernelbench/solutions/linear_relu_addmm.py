# SPDX-License-Identifier: MIT
# linear_relu_addmm: linear_relu as torch.addmm (bias added inside the matrix
# product) and an in-place clamp, with the same nn.Linear (so nodus gives
# it the same weight and bias). Expect EQUIVALENT.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.addmm(self.fc.bias, x, self.fc.weight.t()).clamp_min_(0)
