# SPDX-License-Identifier: MIT
# row_sum_torch_mutate: computes the sum correctly, then scribbles on its
# input in place. The input is read-only while a solution runs: the
# worker's guard must report INPUT_MUTATED (guard input_read_only).
import torch


def run(x, y):
    torch.sum(x, dim=1, out=y)
    x[0, 0] = 0.0
