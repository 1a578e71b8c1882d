from __future__ import annotations

from pathlib import Path

import pytest

from slim.errors import ConfigError
from slim.infra.config import find_config, load_config


def test_slim_toml_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    cfg_file = tmp_path / "slim.toml"
    cfg_file.write_text(
        'graph = "exports/graph.json"\n'
        'cuda_archs = ["sm_80", "sm_90"]\n'
        '[targets."//serving:cpu_server"]\n'
        'linkmap = ["maps/a.map", "maps/b.map"]\n'
        "cpu_only = true\n"
    )
    assert find_config(tmp_path / "sub") == cfg_file
    cfg = load_config(cfg_file)
    assert cfg.inputs["graph"] == [tmp_path / "exports/graph.json"]
    assert cfg.cuda_archs == ("sm_80", "sm_90")
    tc = cfg.for_target("//serving:cpu_server")
    assert tc.inputs["linkmap"] == [tmp_path / "maps/a.map", tmp_path / "maps/b.map"]
    assert tc.cpu_only is True
    assert cfg.for_target("//other:x").cpu_only is None


def test_pyproject_tool_slim(tmp_path: Path) -> None:
    pp = tmp_path / "pyproject.toml"
    pp.write_text('[project]\nname = "x"\n[tool.slim]\ngraph = "g.ndjson"\n')
    assert find_config(tmp_path) == pp
    assert load_config(pp).inputs["graph"] == [tmp_path / "g.ndjson"]


def test_pyproject_without_tool_slim_is_not_a_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(tmp_path) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('grpah = "x"\n', "unknown key 'grpah'"),
        ("graph = 5\n", "expected a path or a list of paths"),
        ('[targets."//a:b"]\ncpu_only = "yes"\n', "cpu_only: expected true or false"),
        ('[targets."//a:b"]\nlinkmaps = []\n', "unknown key 'linkmaps'"),
        ("graph = [\n", "expected TOML"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "slim.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")) as exc:
        load_config(f)
    assert "\n" not in str(exc.value).strip()
