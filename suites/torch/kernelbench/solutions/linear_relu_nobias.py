# SPDX-License-Identifier: MIT
# linear_relu_nobias: a wrong candidate of linear_relu: the matrix product without
# the bias. Expect INCORRECT_NUMERICAL.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(x @ self.fc.weight.t())
