# SPDX-License-Identifier: MIT
# stand-in (bench/kernelbench/shims/README.md): a BaseModel that keeps its
# class's annotated defaults (copied per instance) and the keywords given
import copy


class BaseModel:
    def __init__(self, **kwargs):
        for klass in reversed(type(self).__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if hasattr(klass, name):
                    setattr(self, name, copy.deepcopy(getattr(klass, name)))
        for name, value in kwargs.items():
            setattr(self, name, value)

    def model_dump(self):
        return dict(vars(self))

    dict = model_dump
