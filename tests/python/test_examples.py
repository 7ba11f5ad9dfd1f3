"""examples/python/ runs as documented."""

import importlib.util
import re
import subprocess
import sys

from conftest import ROOT

EXAMPLES = ROOT / "examples" / "python"


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=600, check=True).stdout


def test_digits_example_evaluates_on_fsim():
    out = run(EXAMPLES / "digits.py")
    m = re.search(r"int8 accuracy on fsim: ([0-9.]+)% \(360 images, (\d+) cycles", out)
    assert m, out
    assert float(m.group(1)) >= 95.0 and int(m.group(2)) > 0


def test_plot_profile_example(tmp_path):
    png = tmp_path / "profile.png"
    out = run(EXAMPLES / "plot_profile.py", png)
    assert re.search(r"total \d+ cycles on fsim \(1x16x16\)", out), out
    if importlib.util.find_spec("matplotlib") is None:
        assert "matplotlib is not installed" in out and not png.exists()
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
