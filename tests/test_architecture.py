"""The package's shape: imports go one way, modules stay readable, the command line starts light."""

import subprocess
import sys
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).parents[1]
MAX_MODULE_LINES = 400


def test_imports_keep_the_layers():
    # the contracts live in pyproject.toml: game < design < reading < synthetic | present < lab
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_module_is_longer_than_a_sitting():
    modules = [*ROOT.joinpath("sheetscan").rglob("*.py"), ROOT / "cli.py"]
    long = {str(path.relative_to(ROOT)): n for path in modules if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long


def test_the_command_line_starts_without_the_vision_stack():
    # `sheetscan rescore` of many garden files and `--help` must not wait for OpenCV or a runtime
    code = "import sys, cli; print(sorted({'cv2', 'onnxruntime', 'torch', 'skimage'} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
