# SPDX-License-Identifier: MIT
# linear_relu_syntax: a candidate of linear_relu that does not parse (a
# missing colon, line 9). Expect LOAD_ERROR naming this file and line.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features)
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))
