"""App Attest attestations made here, for the end-to-end tests (app-integrity.md#what-the-server-validates).

A root and an intermediate CA of the test's own stand in for Apple's (the server is started
with APP_ATTEST_ROOT_CA_FILE); the credential certificate and the authenticator data are
built the way App Attest builds them, for the current time. Each knob breaks one check.
"""

import datetime
import hashlib
import os
from base64 import b64encode

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

NONCE_OID = x509.ObjectIdentifier("1.2.840.113635.100.8.2")
AAGUID = {"development": b"appattestdevelop", "production": b"appattest" + bytes(7)}


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Relaydeck Tests")])


def _certificate(subject: str, key, issuer_name: x509.Name, issuer_key, not_before, not_after, ca: bool,
                 extensions=()) -> x509.Certificate:
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject))
               .issuer_name(issuer_name)
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before)
               .not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca and subject != "Test Root" else None),
                              critical=True))
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                          encipher_only=False, decipher_only=False), critical=True)
    for extension in extensions:
        builder = builder.add_extension(extension, critical=False)
    algorithm = hashes.SHA384() if isinstance(issuer_key.curve, ec.SECP384R1) else hashes.SHA256()
    return builder.sign(issuer_key, algorithm)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class Authority:
    """A root and an intermediate CA, valid from a day ago for ten years, unless
    `root_not_after` or `intermediate_not_after` end one of them earlier."""

    def __init__(self, root_not_after: datetime.datetime | None = None,
                 intermediate_not_after: datetime.datetime | None = None):
        now = _now()
        later = now + datetime.timedelta(days=3650)
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        self.root = _certificate("Test Root", self.root_key, _name("Test Root"), self.root_key,
                                 now - datetime.timedelta(days=1), root_not_after or later, ca=True)
        self.intermediate_key = ec.generate_private_key(ec.SECP384R1())
        self.intermediate = _certificate("Test Attestation CA", self.intermediate_key, self.root.subject,
                                         self.root_key, now - datetime.timedelta(days=1),
                                         intermediate_not_after or later, ca=True)

    def root_pem(self) -> bytes:
        return self.root.public_bytes(serialization.Encoding.PEM)


def nonce_extension(nonce: bytes) -> x509.UnrecognizedExtension:
    """SEQUENCE { [1] EXPLICIT OCTET STRING nonce }, as App Attest writes it."""
    octets = b"\x04" + bytes([len(nonce)]) + nonce
    tagged = b"\xa1" + bytes([len(octets)]) + octets
    return x509.UnrecognizedExtension(NONCE_OID, b"\x30" + bytes([len(tagged)]) + tagged)


def attestation(authority: Authority, app_id: str, challenge: str, environment: str = "development", *,
                counter: int = 0, aaguid: bytes | None = None, credential_id: bytes | None = None,
                key_id: bytes | None = None, nonce: bytes | None = None, category: bytes | None = None,
                fmt: str = "apple-appattest", leaf_not_after: datetime.datetime | None = None,
                issuer: Authority | None = None, key: ec.EllipticCurvePrivateKey | None = None) -> dict:
    """The `attestation` field of POST /v1/accounts: {"key_id", "challenge", "object"} in base64.

    Each keyword breaks one check: the counter, the aaguid, the credential ID, the key ID
    sent, the nonce, apple_validation_category_01 (little-endian bytes, as Apple's sample),
    the format, the leaf's end of validity, the CA that signs the leaf. `key` attests a key
    again (a new key otherwise)."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    real_key_id = hashlib.sha256(point).digest()
    cose_key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:65]})
    credential = real_key_id if credential_id is None else credential_id
    auth_data = (hashlib.sha256(app_id.encode()).digest() + b"\x40" + counter.to_bytes(4, "big")
                 + (AAGUID[environment] if aaguid is None else aaguid)
                 + len(credential).to_bytes(2, "big") + credential + cose_key)
    if category is not None:
        auth_data += cbor2.dumps({"apple_bundle_version_01": "1", "apple_validation_category_01": category})
    client_data_hash = hashlib.sha256(challenge.encode()).digest()
    real_nonce = hashlib.sha256(auth_data + client_data_hash).digest()
    signer = issuer or authority
    now = _now()
    leaf = _certificate(real_key_id.hex(), key, signer.intermediate.subject, signer.intermediate_key,
                        now - datetime.timedelta(hours=1),
                        leaf_not_after or now + datetime.timedelta(days=3), ca=False,
                        extensions=[nonce_extension(real_nonce if nonce is None else nonce)])
    obj = cbor2.dumps({
        "fmt": fmt,
        "attStmt": {"x5c": [leaf.public_bytes(serialization.Encoding.DER),
                            signer.intermediate.public_bytes(serialization.Encoding.DER)],
                    "receipt": os.urandom(64)},
        "authData": auth_data,
    })
    return {"key_id": b64encode(real_key_id if key_id is None else key_id).decode(), "challenge": challenge,
            "object": b64encode(obj).decode()}
