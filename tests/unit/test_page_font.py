"""The page ships the glyphs of every Japanese character it writes (大富豪, the rules'
names), so they render on a machine with no Japanese font: the subset's cover, its
licence beside it, and the stylesheet that loads it from the app itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "service" / "rest" / "static" / "fonts"


def test_the_subset_covers_every_japanese_character_the_page_writes() -> None:
    tool = ROOT / "tools" / "font_subset.py"
    checked = subprocess.run(
        [sys.executable, str(tool), "--check"], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_subset_holds_what_the_page_writes_and_no_more() -> None:
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(FONTS / "daifugo-jp.woff2"))["cmap"].getBestCmap()
    assert all(ord(char) in cmap for char in "大富豪貧民革命")
    assert ord("鬱") not in cmap  # a subset: only what the page writes


def test_the_font_travels_with_its_licence_and_the_stylesheet_loads_it_from_the_app() -> None:
    licence = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Noto Sans CJK JP" in licence
    css = (ROOT / "service" / "rest" / "static" / "style.css").read_text(encoding="utf-8")
    assert 'src: url("/static/fonts/daifugo-jp.woff2") format("woff2")' in css
    assert '"Daifugo JP", sans-serif;' in css
