"""The wheel is the product: built from the source, installed into a fresh venv, it reads a sample
photo with the models it carries, far from the source tree."""

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from sheetscan.errors import ExitCode

from conftest import SAMPLES, truth

ROOT = Path(__file__).parents[1]
SOURCES = ("pyproject.toml", "README.md", "cli.py", "sheetscan", "models")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin folder of a fresh venv with the built wheel installed (its dependencies are this
    environment's, reached through a path file: nothing is downloaded, no sheetscan is shared)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work / "dist"),
                    str(source)], check=True, capture_output=True)
    (wheel,) = (work / "dist").glob("sheetscan-*.whl")
    venv.create(work / "venv", with_pip=False)
    site = next((work / "venv" / "lib").glob("python*/site-packages"))
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    bin_folder = work / "venv" / "bin"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_folder / "python"), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, capture_output=True)
    return bin_folder


def run(bin_folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_folder / args[0]), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_installed_command_reads_a_sample_with_the_models_in_the_wheel(installed, tmp_path):
    photo = tmp_path / "photo.jpg"
    shutil.copy(SAMPLES / "phone" / "0000.jpg", photo)
    located = run(installed, "python", "-c", "import sheetscan, cli; print(sheetscan.__file__, cli.__file__)", cwd=tmp_path)
    assert located.returncode == 0 and str(ROOT) not in located.stdout  # the wheel's code, not the source tree's
    result = run(installed, "sheetscan", "score", "--json", str(photo), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # the wheel reads exactly what the source tree reads, with the models it carries
    in_tree = subprocess.run([sys.executable, str(ROOT / "cli.py"), "score", "--json", str(photo)], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
    assert json.loads(result.stdout) == json.loads(in_tree.stdout)
    assert json.loads(result.stdout)["sheets"][0]["garden"]["cells"] == truth(SAMPLES / "phone" / "0000.jpg")["sheets"][0]["garden"]["cells"]


def test_python_m_sheetscan_is_the_command(installed, tmp_path):
    result = run(installed, "python", "-m", "sheetscan", "rescore", str(ROOT / "tests/golden/08-rulebook-final-example.json"),
                 cwd=tmp_path)
    assert result.returncode == 0 and "Audit:" in result.stdout


def test_a_missing_model_is_one_line_and_the_installation_code_from_the_real_entry_point(installed, tmp_path):
    shutil.copy(SAMPLES / "phone" / "0000.jpg", tmp_path / "photo.jpg")
    result = subprocess.run([str(installed / "sheetscan"), "score", "photo.jpg"], cwd=tmp_path, capture_output=True, text=True,
                            env={"SHEETSCAN_MODEL": str(tmp_path / "nowhere"), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert result.returncode == ExitCode.installation
    assert result.stderr.strip().splitlines() == [
        f"sheetscan: {tmp_path / 'nowhere' / 'decoration.onnx'}: no usable model; rebuild it with "
        "'sheetscan train --networks cells; sheetscan train --networks cells-tables'"]


@pytest.mark.parametrize("name, content, code", [
    ("absent.jpg", None, ExitCode.bad_input),
    ("notes.jpg", b"shopping list", ExitCode.bad_input),
    ("cut.jpg", "cut", ExitCode.bad_input),
    ("plain.png", "paper", ExitCode.no_sheet),
])
def test_the_installed_command_gives_each_bad_input_its_code_by_name_and_reads_the_rest(installed, tmp_path, name,
                                                                                       content, code):
    import cv2
    import numpy as np

    good = tmp_path / "good.jpg"
    shutil.copy(SAMPLES / "phone" / "0000.jpg", good)
    bad = tmp_path / name
    if content == "cut":
        bad.write_bytes(good.read_bytes()[:5000])
    elif content == "paper":
        paper = np.full((600, 800), 235, np.uint8)
        cv2.putText(paper, "a shopping list", (50, 300), cv2.FONT_HERSHEY_SIMPLEX, 2, 40, 3)
        bad.write_bytes(cv2.imencode(".png", paper)[1].tobytes())
    elif content is not None:
        bad.write_bytes(content)
    result = run(installed, "sheetscan", "score", "--json", str(bad), str(good), cwd=tmp_path)
    assert result.returncode == code  # the worst code of the batch
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == [str(bad), str(good)] and lines[1]["error"] is None
    assert len(result.stderr.strip().splitlines()) == 1 and name in result.stderr and "Traceback" not in result.stderr
