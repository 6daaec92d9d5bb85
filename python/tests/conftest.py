"""Fixtures of the Python tests: the coulomb command of the same build
($COULOMB_BIN), the FCLIB folder ($COULOMB_FCLIB_DIR) and the scenes folder."""

import os
import pathlib

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def coulomb_bin():
    path = os.environ.get("COULOMB_BIN", str(REPOSITORY / "build" / "coulomb"))
    if not os.path.exists(path):
        pytest.skip(f"the coulomb command is not built ({path})")
    return path


@pytest.fixture
def scenes_dir():
    return REPOSITORY / "scenes"


@pytest.fixture
def fclib_dir():
    path = pathlib.Path(os.environ.get("COULOMB_FCLIB_DIR", REPOSITORY.parent / "shared" / "fclib"))
    if not path.is_dir():
        pytest.skip(f"no FCLIB folder at {path} (COULOMB_FCLIB_DIR)")
    return path
