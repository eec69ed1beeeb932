"""The rules' words (``rules.vocabulary``) as the proto's enums and back, by
name: the word ``seven_pass`` of ``WaitingFor`` is ``WAITING_FOR_SEVEN_PASS``,
and no word (None or "") is the enum's ``*_UNSPECIFIED`` zero."""

from __future__ import annotations

import re

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from .gen.daifugo.v1 import match_service_pb2 as pb


class ProtoWords:
    """One proto enum's value names by the rules' words (a message takes either
    a value or its name)."""

    def __init__(self, enum: EnumTypeWrapper) -> None:
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.DESCRIPTOR.name).upper() + "_"
        self.unspecified = f"{prefix}UNSPECIFIED"
        values = [value for value in enum.DESCRIPTOR.values if value.name != self.unspecified]
        self.names = {value.name[len(prefix) :].lower(): value.name for value in values}
        self.words = {value.number: value.name[len(prefix) :].lower() for value in values}

    def name(self, word: str | None) -> str:
        """The enum value named for ``word`` (UNSPECIFIED for no word); KeyError
        for a word the proto lacks."""
        return self.names[word] if word else self.unspecified

    def word(self, number: int) -> str:
        """The word of an enum value ("" for zero or a value this version does not know)."""
        return self.words.get(number, "")


PHASES = ProtoWords(pb.Phase)
WAITS = ProtoWords(pb.WaitingFor)
FIELD_KINDS = ProtoWords(pb.FieldKind)
ELEVEN_BACKS = ProtoWords(pb.ElevenBack)
