# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md): the study fetches nothing
def get(*args, **kwargs):
    raise RuntimeError("requests stand-in: the side-by-side study fetches nothing")
