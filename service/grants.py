"""Join grants: short-lived JWTs a platform signs so that a player's own client can join a
seat without the platform API key.

The server holds only the platform's public key (``--grant-public-key``), and the key decides
the one algorithm accepted: Ed25519 -> EdDSA, EC P-256 -> ES256, RSA (2048 bits or more) ->
RS256. ``none``, HMAC and every other algorithm are refused, so a grant cannot be forged with
the public key as an HMAC secret. Whether a grant was used already is not decided here but in
the table's log (the ``jti`` is recorded in the ``joined`` entry), so every replica agrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from bezique.service.errors import PermissionDenied, Unauthenticated
from bezique.service.settings import Limits

LEEWAY = 5.0
"""Seconds of clock difference allowed between the platform and the server on ``exp``/``nbf``."""
CLAIMS = ("exp", "jti", "sub", "table")
"""The claims every grant must have: ``seat``, ``name`` and ``buy_in`` are optional."""

PublicKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey | rsa.RSAPublicKey


@dataclass(frozen=True)
class Grant:
    """What a checked grant allows: one join of ``table_id``, as ``player_id``."""

    table_id: str
    seat: int | None
    """The seat it is for; None: any free seat."""
    player_id: str
    name: str
    buy_in: int
    jti: str
    expires: float


def printable_id(value: str, limit: int = Limits.max_player_id) -> bool:
    """Whether ``value`` is 1 to ``limit`` printable characters (an opaque platform id)."""
    return 0 < len(value) <= limit and value.isprintable()


def load_public_key(path: str) -> tuple[PublicKey, str]:
    """The key in a PEM file and the one algorithm it verifies; ValueError says why not."""
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (ValueError, TypeError, OSError) as exc:
        raise ValueError(f"{path!r} is not a PEM public key ({exc.__class__.__name__})"
                         ) from None
    if isinstance(key, ed25519.Ed25519PublicKey):
        return key, "EdDSA"
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return key, "ES256"
    if isinstance(key, rsa.RSAPublicKey) and key.key_size >= 2048:
        return key, "RS256"
    raise ValueError(f"{path!r} holds a key of a kind grants cannot use: give an Ed25519, "
                     "EC P-256 or RSA (2048 bits or more) public key")


class GrantVerifier:
    """Checks join grants against the platform's public key."""

    def __init__(self, key: PublicKey, algorithm: str) -> None:
        self.key = key
        self.algorithm = algorithm

    @classmethod
    def from_file(cls, path: str) -> GrantVerifier:
        key, algorithm = load_public_key(path)
        return cls(key, algorithm)

    def verify(self, token: str, table_id: str) -> Grant:
        """The grant's claims, checked: signature, algorithm, expiry, table and claim types.
        Replays are checked later, against the table's log."""
        if len(token) > Limits.max_grant_length:
            raise Unauthenticated(f"join_grant is longer than {Limits.max_grant_length} "
                                  "characters",
                                  field="join_grant", reason="GRANT_INVALID")
        try:
            claims: dict[str, Any] = jwt.decode(
                token, self.key, algorithms=[self.algorithm], leeway=LEEWAY,
                options={"require": list(CLAIMS), "verify_aud": False, "verify_iat": False})
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("the join grant has expired", field="join_grant",
                                  reason="GRANT_EXPIRED") from None
        except jwt.ImmatureSignatureError:
            raise Unauthenticated("the join grant is not valid yet (nbf)", field="join_grant",
                                  reason="GRANT_EXPIRED") from None
        except jwt.InvalidTokenError as exc:
            raise Unauthenticated(f"the join grant is not valid here: {_why(exc)}",
                                  field="join_grant", reason="GRANT_INVALID") from None
        grant = _grant(claims)
        if grant.table_id != table_id:
            raise PermissionDenied("the join grant is for another table", field="join_grant",
                                   reason="GRANT_WRONG_TABLE")
        return grant


def _why(error: jwt.InvalidTokenError) -> str:
    """A short, fixed description of why PyJWT refused a grant (never the grant itself)."""
    if isinstance(error, jwt.InvalidSignatureError):
        return "the signature does not verify with the platform's key"
    if isinstance(error, jwt.InvalidAlgorithmError):
        return "its algorithm is not the one of the platform's key"
    if isinstance(error, jwt.MissingRequiredClaimError):
        return f"it has no {error.claim!r} claim"
    if isinstance(error, jwt.DecodeError):
        return "it is not a signed JWT"
    return error.__class__.__name__


def _grant(claims: dict[str, Any]) -> Grant:
    """The typed grant, or GRANT_INVALID naming the claim of the wrong type."""

    def invalid(claim: str, what: str) -> Unauthenticated:
        return Unauthenticated(f"the join grant's {claim!r} claim must be {what}",
                               field="join_grant", reason="GRANT_INVALID")

    table, player, jti = claims["table"], claims["sub"], claims["jti"]
    if not isinstance(table, str) or not printable_id(table, Limits.max_table_id):
        raise invalid("table", "a table id")
    if not isinstance(player, str) or not printable_id(player):
        raise invalid("sub", f"the player_id, 1 to {Limits.max_player_id} printable characters")
    if not isinstance(jti, str) or not printable_id(jti):
        raise invalid("jti", f"1 to {Limits.max_player_id} printable characters")
    seat = claims.get("seat")
    if seat == "any":
        seat = None
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or seat < 0):
        raise invalid("seat", "a seat number, \"any\" or absent")
    name = claims.get("name", "")
    if not isinstance(name, str):
        raise invalid("name", "a string")
    buy_in = claims.get("buy_in", 0)
    if isinstance(buy_in, bool) or not isinstance(buy_in, int) or buy_in < 0:
        raise invalid("buy_in", "a whole number of chips")
    for claim in ("exp", "nbf"):  # PyJWT reads "1700000000" as a number: a NumericDate is one
        value = claims.get(claim, 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise invalid(claim, "a number of seconds since the epoch (a JWT NumericDate)")
    return Grant(table, seat, player, name, buy_in, jti, float(claims["exp"]))
