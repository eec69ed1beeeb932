"""The public keys that sign receipts and seals, retired ones too, so that anyone
can check a record without trusting the server that hands it over later."""

from __future__ import annotations

import msgspec
from litestar import get
from litestar.datastructures import CacheControlHeader
from litestar.di import NamedDependency

from .context import Context
from .models import SigningKeyList


@get(
    "/keys",
    summary="The public keys that sign receipts and seals",
    description="Ed25519 keys, oldest first. A receipt or seal names its key by key_id and "
    "counts only when its time lies in that key's [valid_from, valid_to). A rotation adds "
    "a key and closes the previous one; no key is ever removed. docs/AUDIT.md has the formats.",
    cache_control=CacheControlHeader(max_age=60, public=True),
)
async def signing_keys(ctx: NamedDependency[Context]) -> SigningKeyList:
    return msgspec.convert(ctx.signing_keys.to_dict(), SigningKeyList)


HANDLERS = [signing_keys]
