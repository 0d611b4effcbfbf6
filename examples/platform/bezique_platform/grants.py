"""The platform's join grants: its own Ed25519 key pair, made on first start and kept in its
folder, and short-lived JWTs signed with it that let a player's own client take one seat.

The engine holds only the public half (``bezique-server --grant-public-key
HOME/grant-key.pub.pem``); the private half never leaves the platform's folder (mode 0600).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

PRIVATE_FILE = "grant-key.pem"
PUBLIC_FILE = "grant-key.pub.pem"


def ensure_key(home: Path) -> Path:
    """Make the platform's key pair in ``home`` unless it is there; the public key's path
    (what the engine is started with)."""
    home.mkdir(parents=True, exist_ok=True)
    private, public = home / PRIVATE_FILE, home / PUBLIC_FILE
    if not private.exists():
        key = ed25519.Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        descriptor = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
    if not public.exists():
        kept = serialization.load_pem_private_key(private.read_bytes(), None)
        if not isinstance(kept, ed25519.Ed25519PrivateKey):
            raise ValueError(f"{private} is not an Ed25519 private key")
        public.write_bytes(kept.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return public


@dataclass(frozen=True)
class GrantSigner:
    """Signs join grants with the platform's private key."""

    key: ed25519.Ed25519PrivateKey
    seconds: float = 60.0
    """How long a grant is valid: long enough for the player's client to join, no longer."""

    @classmethod
    def of_home(cls, home: Path, seconds: float = 60.0) -> GrantSigner:
        ensure_key(home)
        key = serialization.load_pem_private_key((home / PRIVATE_FILE).read_bytes(), None)
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise ValueError(f"{home / PRIVATE_FILE} is not an Ed25519 private key")
        return cls(key, seconds)

    def sign(self, table_id: str, seat: int | None, player_id: str, name: str,
             buy_in: int = 0) -> str:
        """One join of ``table_id`` (at ``seat``; None: any free one) as ``player_id``. The
        ``jti`` makes it single-use: the engine records it in the seat's join."""
        claims: dict[str, object] = {
            "table": table_id, "seat": "any" if seat is None else seat, "sub": player_id,
            "name": name, "exp": int(time.time() + self.seconds), "jti": uuid.uuid4().hex}
        if buy_in:
            claims["buy_in"] = buy_in
        return jwt.encode(claims, self.key, algorithm="EdDSA")
