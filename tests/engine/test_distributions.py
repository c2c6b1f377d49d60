"""The package offered for a missing import is derived from the module name
alone and is always a bare PEP 508 name (engine/protocol/distributions.py)."""

from __future__ import annotations

import pytest

from autogradviz.engine.protocol.distributions import install_target, valid_distribution, valid_module
from autogradviz.engine.worker.missing_module import missing_module_error


def test_known_import_names_map_to_their_distributions():
    assert [install_target(m) for m in ("cv2", "PIL.Image", "sklearn.linear_model", "yaml", "torchsummary")] \
        == ["opencv-python", "pillow", "scikit-learn", "pyyaml", "torchsummary"]


@pytest.mark.parametrize("name", ["numpy @ https://evil.example/x.tar.gz", "--index-url=http://x", "a b",
                                  "../x", "x;rm -rf ~", "", "x" * 200, "numpy==1.0", "-e.", "ÿ"])
def test_anything_but_a_bare_name_is_refused(name):
    assert not valid_distribution(name)
    assert install_target(name) is None


def test_valid_names():
    assert valid_distribution("opencv-python") and valid_distribution("A.b_c-1")
    assert valid_module("cv2.data") and not valid_module("cv2..data") and not valid_module("1x")


def test_a_raised_error_with_a_url_for_a_name_gets_no_install_code():
    assert missing_module_error(ModuleNotFoundError("x", name="numpy @ https://evil.example/x")) is None
    code, params, _ = missing_module_error(ModuleNotFoundError("x", name="no_such_module_p3"))
    assert code == "missing_module" and params["distribution"] == "no_such_module_p3"
