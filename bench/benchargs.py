"""Command line of the bench scripts: N database paths, --help from the script's docstring."""
import os
import sys


def databases(doc, count):
    """The DB paths of the command line (count None: one or more). --help
    prints doc; a wrong count or a missing file prints a usage line or an
    error and exits 2."""
    args = sys.argv[1:]
    prog = os.path.basename(sys.argv[0])
    if args[:1] in (["-h"], ["--help"]):
        print(doc.strip())
        sys.exit(0)
    if (len(args) != count) if count is not None else not args:
        usage = next((line.split(": ", 1)[-1] for line in doc.splitlines()
                      if line.startswith("Usage:")), prog)
        print(f"usage: {usage}\n(--help says more)", file=sys.stderr)
        sys.exit(2)
    for path in args:
        if not os.path.isfile(path):
            print(f"{prog}: {path}: no such database", file=sys.stderr)
            sys.exit(2)
    return args
