"""Which pip distribution provides an import name, and whether a string is a
package name at all.

Both processes need it: the worker names the distribution in a
`missing_module` error for the CLI and other readers
(engine/worker/missing_module.py), and the app derives the package it offers
to install from the module name alone, never from what a trace or a message
says (a saved trace is data: its `distribution` or `command` could be
`numpy @ https://...`, whose build would run someone else's code). Neither
torch nor Qt is imported here.
"""

from __future__ import annotations

import re
from typing import Optional

# Import names whose pip distribution is called something else. Only the
# top-level name matters (`import sklearn.linear_model` needs scikit-learn).
DISTRIBUTIONS: dict[str, str] = {
    "cv2": "opencv-python",
    "PIL": "pillow",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "yaml": "pyyaml",
    "bs4": "beautifulsoup4",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "Crypto": "pycryptodome",
    "serial": "pyserial",
    "usb": "pyusb",
    "jwt": "PyJWT",
    "fitz": "PyMuPDF",
    "OpenGL": "PyOpenGL",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "magic": "python-magic",
    "gi": "PyGObject",
    "wx": "wxPython",
    "mpl_toolkits": "matplotlib",
    "google.protobuf": "protobuf",
    "pytorch_lightning": "pytorch-lightning",
    "torch_geometric": "torch-geometric",
    "tensorboardX": "tensorboardX",
    "sentencepiece": "sentencepiece",
    "Levenshtein": "python-Levenshtein",
    "lightgbm": "lightgbm",
    "faiss": "faiss-cpu",
}

# PEP 508 / packaging's name rule: letters, digits, and . _ - inside.
_NAME = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE)
MAX_NAME = 100  # longer than any real distribution name


def valid_distribution(name) -> bool:
    """True for a bare package name pip reads as nothing but a name (no
    version, URL, path, option or extra)."""
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


def valid_module(name) -> bool:
    """True for a dotted import name made of ASCII identifiers (`cv2.data`)."""
    return (isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.isascii()
            and all(part.isidentifier() for part in name.split(".")))


def distribution_for(module: str) -> str:
    """The pip distribution that provides the import name `module` (its
    top-level part), e.g. "cv2.data" -> "opencv-python"."""
    if module in DISTRIBUTIONS:
        return DISTRIBUTIONS[module]
    top = module.split(".", 1)[0]
    return DISTRIBUTIONS.get(top, top)


def install_target(module) -> Optional[str]:
    """The distribution to offer for the missing import name `module`, or
    None when `module` is not an import name or gives no valid package name."""
    if not valid_module(module):
        return None
    name = distribution_for(module)
    return name if valid_distribution(name) else None
