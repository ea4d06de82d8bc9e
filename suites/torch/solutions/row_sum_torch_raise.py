# SPDX-License-Identifier: MIT
# row_sum_torch_raise: raises on every call: RUNTIME_ERROR.
def run(x, y):
    raise ValueError("row_sum_torch_raise refuses to compute")
