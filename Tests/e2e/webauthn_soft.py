"""A passkey authenticator in software for the web console's end-to-end tests: keys from
`cryptography`, CBOR from `cbor2`, and every field a test may want wrong as a keyword."""

import hashlib
import json
import os
from base64 import urlsafe_b64decode, urlsafe_b64encode

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftAuthenticator:
    def __init__(self, algorithm: str = "ES256"):
        self.algorithm = algorithm
        if algorithm == "ES256":
            self.key = ec.generate_private_key(ec.SECP256R1())
        else:
            self.key = ed25519.Ed25519PrivateKey.generate()
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = b""

    def cose_key(self) -> bytes:
        if self.algorithm == "ES256":
            numbers = self.key.public_key().public_numbers()
            return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cbor2.dumps({1: 1, 3: -8, -1: 6, -2: raw})

    @staticmethod
    def auth_data(rp_id: str, flags: int, counter: int, attested: bytes = b"") -> bytes:
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + counter.to_bytes(4, "big") + attested

    @staticmethod
    def client_data(kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()

    def create(self, options: dict, origin: str, rp_id: str | None = None, flags: int = UP | UV | AT,
               kind: str = "webauthn.create", challenge: str | None = None) -> dict:
        """The RegistrationResponseJSON of `navigator.credentials.create(options)`."""
        public_key = options["publicKey"]
        self.user_handle = unb64url(public_key["user"]["id"])
        client_data = self.client_data(kind, challenge or public_key["challenge"], origin)
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self.cose_key()
        auth = self.auth_data(rp_id or public_key["rp"]["id"], flags, self.counter, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def get(self, options: dict, origin: str, rp_id: str | None = None, flags: int = UP | UV,
            kind: str = "webauthn.get", challenge: str | None = None, counter: int | None = None,
            tamper: bool = False) -> dict:
        """The AuthenticationResponseJSON of `navigator.credentials.get(options)`; the counter
        goes up by one unless given."""
        public_key = options["publicKey"]
        self.counter = self.counter + 1 if counter is None else counter
        client_data = self.client_data(kind, challenge or public_key["challenge"], origin)
        auth = self.auth_data(rp_id or public_key["rpId"], flags, self.counter)
        signed = auth + hashlib.sha256(client_data).digest()
        if self.algorithm == "ES256":
            signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        else:
            signature = self.key.sign(signed)
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth),
                             "signature": b64url(signature), "userHandle": b64url(self.user_handle)},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}
