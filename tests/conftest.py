"""Shared fixtures: paths to the real tool outputs copied into tests/data."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="Rewrite golden files from output."
    )


@pytest.fixture(autouse=True)
def _isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets its own parsed-graph cache directory."""
    monkeypatch.setenv("SLIM_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def data() -> Path:
    return DATA


def _hypothesis_profile() -> None:
    """No per-example deadline: a loaded CI machine must not turn slowness into failures."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("slim", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("slim")


_hypothesis_profile()
