"""The `cmake` fixture: each test that takes it runs with both CMakes (`_cmake_project`)."""

from __future__ import annotations

import pytest

from ._cmake_project import cmakes, need_tools


@pytest.fixture(params=cmakes())
def cmake(request: pytest.FixtureRequest) -> str:
    need_tools()
    return str(request.param)
