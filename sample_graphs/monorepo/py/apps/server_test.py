"""A Bazel py_test of the server (uses the testonly py.testutil)."""

from __future__ import annotations

import unittest

from py.reexport import Engine
from py.testutil.fakes import fake_values


class ServerTest(unittest.TestCase):
    def test_engine_clamps(self) -> None:
        assert Engine(1.0).run(fake_values()) == [1.0, 0.0, 3.0]


if __name__ == "__main__":
    unittest.main()
