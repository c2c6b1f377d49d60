"""Style sheets: every image they name exists once installed, so a themed check
box never loses its tick to a missing file."""

import re
from pathlib import Path

import pytest

from autogradviz.app.resources_loader import style_sheet


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_style_sheet_images_exist(theme):
    qss = style_sheet(theme)
    assert qss, f"{theme}.qss is missing"
    assert "@STYLES@" not in qss
    for url in re.findall(r"url\(([^)]+)\)", qss):
        assert Path(url).is_file(), url


def test_dark_check_boxes_have_a_visible_outline():
    qss = style_sheet("dark")
    assert re.search(r"QCheckBox::indicator\s*{[^}]*border:\s*1px solid", qss)
    assert re.search(r"QCheckBox::indicator:checked\s*{[^}]*image:\s*url", qss)
