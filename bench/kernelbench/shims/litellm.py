# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md): no LLM is queried here
def completion(*args, **kwargs):
    raise RuntimeError("litellm stand-in: the side-by-side study queries no model")
