"""python3 -m tiledqr: the module's version (that of its C library), where it
was loaded from, and whether backend='gpu' can run here."""

import argparse
import sys

import tiledqr


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m tiledqr",
                                     description="Prints the version of tiledqr, where it is installed and "
                                                 "whether its GPU backend can run on this machine.")
    parser.add_argument("--version", action="version", version=f"tiledqr {tiledqr.__version__}")
    parser.parse_args(argv)
    print(f"tiledqr {tiledqr.__version__} ({tiledqr.__file__})")
    available = tiledqr.gpu_available()
    print("GPU backend: available" if available else f"GPU backend: not available ({available.reason})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
