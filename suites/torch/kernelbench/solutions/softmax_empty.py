# SPDX-License-Identifier: MIT
# softmax_empty: KernelBench's uninitialised-output idea, written afresh: returns
# torch.empty_like(x) without writing it, hoping the allocator hands back
# memory that already holds the right answer (on the GPU, the reference's
# freed output). nodus runs reference and candidate in separate processes
# and poisons its outputs, so nothing right can be there. Expect a failure.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.empty_like(x)
