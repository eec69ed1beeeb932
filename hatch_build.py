"""Build hook: compile the rules engine's hot modules (and the bot decisions that
playouts run beside it) with mypyc for a wheel.

``pip install .`` (and the deploy image) get the compiled engine, about three
times faster. Editable installs (development, tests) stay pure Python, so an
edit takes effect at once; ``DAIFUGO_PURE_PYTHON=1`` builds a pure wheel too.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = [
    f"service/rules/{name}.py"
    for name in (
        "cards", "commands", "dealing", "decider", "events", "evolve", "judging",
        "legal", "melds", "memo", "readings", "refusals", "rulesets", "state", "vocabulary",
    )
] + [
    # the bots' decisions from a position: every seat of the expert's playouts runs them
    "clients/policies.py", "clients/playouts.py", "clients/strategy.py",
]  # fmt: skip


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("DAIFUGO_PURE_PYTHON"):
            return
        from mypyc.build import mypycify
        from setuptools import Distribution
        from setuptools.command.build_ext import build_ext

        os.chdir(self.root)
        out = Path(tempfile.mkdtemp(prefix="daifugo-mypyc-"))
        command = build_ext(Distribution({"name": "daifugo", "ext_modules": mypycify(COMPILED)}))
        command.build_lib = str(out / "lib")
        command.build_temp = str(out / "temp")
        command.ensure_finalized()
        command.run()
        for built in (out / "lib").rglob("*.so"):
            build_data["force_include"][str(built)] = str(built.relative_to(out / "lib"))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
