# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md)
def tqdm(iterable=None, *args, **kwargs):
    return iterable if iterable is not None else []
