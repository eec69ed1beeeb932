"""The input limits every adapter shares."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.app.errors import ServiceError
from service.app.inputs import (
    MAX_NAME_CHARS,
    REFUSED_IN_NAMES,
    check_client_seeds,
    check_name,
    check_options,
    check_request_id,
    check_turn_seconds,
)

BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
printable = st.characters(blacklist_categories=tuple(REFUSED_IN_NAMES))


def code_of(check: object, *args: object) -> str | None:
    try:
        check(*args)  # type: ignore[operator]
    except ServiceError as error:
        return error.code
    return None


@given(st.text(printable, max_size=MAX_NAME_CHARS))
def test_a_short_name_of_printable_characters_is_fine(name: str) -> None:
    check_name(name)


@given(
    st.text(printable, max_size=10),
    st.sampled_from(BIDI + "\x00\x1b\x7f\n\u061c\u200b\u2028\u2029\ufeff"),
    st.integers(0, 10),
)
def test_a_name_with_a_control_or_bidi_character_is_refused(
    text: str, bad: str, where: int
) -> None:
    name = text[:where] + bad + text[where:]
    assert code_of(check_name, name) == "invalid_name"


def test_every_control_format_and_separator_character_is_refused() -> None:
    # the whole code space, one character at a time, beside a printable one
    refused = []
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        code = code_of(check_name, f"a{char}")
        assert (code == "invalid_name") == (unicodedata.category(char) in REFUSED_IN_NAMES), point
        if code:
            refused.append(point)
    assert {0x0A, 0x85, 0x061C, 0x200B, 0x2028, 0x2029, 0xFEFF, 0xE0001} <= set(refused)
    assert code_of(check_name, "名前 with spaces") is None


def test_limits_and_their_codes() -> None:
    assert code_of(check_name, "n" * 33) == "too_long"
    assert code_of(check_client_seeds, [b"s" * 65], 3) == "too_long"
    assert code_of(check_client_seeds, [b"s" * 64] * 3, 3) is None
    assert code_of(check_client_seeds, [b""] * 4, 3) == "too_many"
    assert code_of(check_options, {f"o{n}": 1 for n in range(65)}) == "too_many"
    assert code_of(check_options, {"eleven_back": "x" * 33}) == "too_long"
    assert code_of(check_options, {"jokers": {"nested": 1}}) == "bad_request"
    assert code_of(check_request_id, "r" * 129) == "too_long"
    assert code_of(check_request_id, "r" * 128) is None
    assert code_of(check_request_id, "r" * 21, True) == "request_id_too_short"
    assert code_of(check_request_id, "r" * 22, True) is None
    assert code_of(check_request_id, "", True) is None  # no id: no retry, nothing to guess
    assert code_of(check_turn_seconds, 0.999) == "turn_time_too_short"
    for fine in (0.0, 1.0, 60.0):
        assert code_of(check_turn_seconds, fine) is None


@pytest.mark.parametrize("name", ["名前", "Zoë", "a b", "🂡 ace"])
def test_names_of_any_script_are_fine(name: str) -> None:
    check_name(name)
