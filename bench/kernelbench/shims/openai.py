# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md): no LLM is queried here
class OpenAI:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("openai stand-in: the side-by-side study queries no model")
