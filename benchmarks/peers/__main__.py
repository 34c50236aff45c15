"""``python -m benchmarks.peers``: run the peers benchmark (``compare``)."""

import sys

from benchmarks.peers.compare import main

if __name__ == "__main__":
    sys.exit(main())
