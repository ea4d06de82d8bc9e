# a source for bad-python-init.json, which is refused for its python.init
