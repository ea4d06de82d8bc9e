# SPDX-License-Identifier: MIT
# linear_relu_raise: a candidate of linear_relu whose forward raises. Expect
# RUNTIME_ERROR with the exception's text.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        raise RuntimeError("linear_relu_raise: not implemented")
