# SPDX-License-Identifier: MIT
# row_sum_torch_warn: row_sum_torch that also warns on every call. Showing
# a warning reads its source line from disk, which would be fatal after
# lockdown; the adapter drops warnings (a worker's stderr is /dev/null),
# so this honest candidate is correct, not killed.
import warnings

import torch


def run(x, y):
    warnings.warn("row_sum_torch_warn warns on every call")
    torch.sum(x, dim=1, out=y)
