# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md)
def load_dotenv(*args, **kwargs):
    return False
