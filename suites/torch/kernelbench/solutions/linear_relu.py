# SPDX-License-Identifier: MIT
# linear_relu: a KernelBench-format problem written for nodus (not copied
# from KernelBench): nn.Linear with its bias, then ReLU, as two modules.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


batch_size = 32
in_features = 256
out_features = 128


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
