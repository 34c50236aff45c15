"""The check an import makes: that no other installed package shares the import name.

PyPI's ``langgraph-memory`` (a different project from this kit,
``langgraph-memory-kit``) also installs a package named ``langgraph_memory``.
Installed into one environment, the two write into the same folder: whichever came
last wins the files they share and leaves the other's files beside them, and the
result fails later, somewhere deep, as a missing name. The other package leaves its
``langgraph_memory-<version>.dist-info`` folder beside the package folder, which is
what this module looks for: in one listing of that folder, a fraction of a
millisecond.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> print(foreign_install(folder))
None
>>> (folder / "langgraph_memory-0.1.0.dist-info").mkdir()
>>> foreign_install(folder)
'langgraph-memory 0.1.0'
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from langgraph_memory.errors import ConflictingPackageError

#: The metadata folder of the other project: ``langgraph_memory-0.1.0.dist-info``
#: (or an egg's). This kit's own is ``langgraph_memory_kit-...``, which it never matches.
FOREIGN = re.compile(r"^langgraph[-_.]memory(?:-([^-]+?))?\.(?:dist|egg)-info$", re.IGNORECASE)


def foreign_install(folder: Path) -> str | None:
    """The other ``langgraph-memory`` installed in ``folder`` ("name version"), else None.

    >>> print(foreign_install(Path("/nonexistent")))
    None
    """
    try:
        names = os.listdir(folder)
    except OSError:  # not a folder this process can read: nothing to detect
        return None
    for name in sorted(names):
        if found := FOREIGN.match(name):
            return f"langgraph-memory {found.group(1) or '(unknown version)'}"
    return None


def check_install(folder: Path | None = None) -> None:
    """Raise ``ConflictingPackageError`` when the other ``langgraph-memory`` sits in
    ``folder`` (default: the folder this package is installed in).

    >>> check_install(Path("/nonexistent"))
    """
    where = Path(__file__).parent.parent if folder is None else folder
    if other := foreign_install(where):
        raise ConflictingPackageError(
            f"{other} is installed in {where}: it is a different project that uses the same "
            "import name, langgraph_memory, and the two overwrite each other's files. Run "
            "`pip uninstall -y langgraph-memory langgraph-memory-kit`, then install this kit "
            "again: `pip install .` in its checkout (`pip install langgraph-memory-kit` once a "
            "release is on PyPI)"
        )
