"""The peak memory of a `sheetscan` command run as a process of its own.

The program writes its VmHWM (from /proc, Linux) as it ends. A child's rusage would not do: it
counts the pages the child shares with its parent until it starts the program, up to the
parent's own size (a bench once reported 905 MB for a score process of 270 MB).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

# run as `python -c`: the file to write the peak to, then the command's arguments
_RUN_AND_WRITE_PEAK = """import atexit, sys
from pathlib import Path
import cli
peak = Path(sys.argv.pop(1))
status = Path("/proc/self/status")
atexit.register(lambda: peak.write_text(next(line.split()[1] for line in status.read_text().splitlines()
                                             if line.startswith("VmHWM:"))))
cli.main()
"""


def peak_memory_kib(arguments: list[str]) -> int:
    """The peak resident memory, in KiB, of ``sheetscan ARGUMENTS`` run as a process of its own
    (whatever its exit code)."""
    with tempfile.TemporaryDirectory(prefix="sheetscan-peak-") as folder:
        peak_file = Path(folder) / "peak-kib"
        subprocess.run([sys.executable, "-c", _RUN_AND_WRITE_PEAK, str(peak_file), *arguments], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return int(peak_file.read_text())
