"""The page's Japanese glyphs as a font of its own: a WOFF2 subset of Noto Sans CJK JP
(SIL Open Font License 1.1) holding only the Japanese characters the page writes (大富豪,
the local rules' names, the places), so 大富豪 renders on a machine with no Japanese
font, served by the app itself under its Content-Security-Policy (font-src 'self').

    python tools/font_subset.py           # write service/rest/static/fonts/daifugo-jp.woff2
    python tools/font_subset.py --check   # exit 1 when a character the page writes is missing

Writing needs fontTools with Brotli (``pip install 'fonttools[woff]'``) and Noto Sans CJK
(Debian's ``fonts-noto-cjk``; ``--source`` names another copy); ``--check`` needs fontTools
only. A rule named with a new kanji fails the check (tests/unit/test_page_font.py) until
the subset is made again."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "service" / "rest" / "static"
FONT = STATIC / "fonts" / "daifugo-jp.woff2"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_NAME = "Noto Sans CJK JP"  # the collection's Japanese member
# Japanese punctuation, kana, CJK ideographs, full-width forms: what system-ui may lack
JAPANESE = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
WRITTEN = ("*.html", "*.js", "*.css")


def characters_used() -> str:
    """Every Japanese character the page's files write, sorted."""
    found: set[str] = set()
    for pattern in WRITTEN:
        for path in STATIC.glob(pattern):
            found.update(JAPANESE.findall(path.read_text(encoding="utf-8")))
    return "".join(sorted(found))


def unicode_range(text: str) -> str:
    """The CSS unicode-range of ``text``'s characters, runs merged."""
    points = sorted({ord(char) for char in text})
    runs: list[tuple[int, int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


def missing(font: Path, text: str) -> str:
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(font))["cmap"].getBestCmap()
    return "".join(char for char in text if ord(char) not in cmap)


def write(source: Path, text: str) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    collection = TTCollection(str(source))
    fonts = [font for font in collection.fonts if font["name"].getDebugName(4) == SOURCE_NAME]
    if not fonts:
        raise SystemExit(f"{source} holds no {SOURCE_NAME}")
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # vertical forms and the like stay as they were
    options.name_IDs = ["*"]  # the copyright and licence notices travel with the font
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    font = fonts[0]
    subsetter.subset(font)
    FONT.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(str(FONT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the subset's cover")
    parser.add_argument("--source", type=Path, default=SOURCE, help="Noto Sans CJK (.ttc)")
    args = parser.parse_args(argv)
    text = characters_used()
    if not args.check:
        write(args.source, text)
        print(f"{FONT.relative_to(ROOT)}: {len(text)} characters, {FONT.stat().st_size} bytes")
        print(f"unicode-range: {unicode_range(text)}")
        return 0
    absent = missing(FONT, text) if FONT.exists() else text
    if absent:
        print(f"{FONT.relative_to(ROOT)} lacks {absent!r}: run python tools/font_subset.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
