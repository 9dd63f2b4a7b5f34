#!/usr/bin/env python3
"""Independent JWT check for the tests: verifies a compact JWS with Python's `cryptography`.

usage: verify_jwt.py <public-key.pem> <token>
Prints the decoded header and claims as JSON on success; exits 1 with a reason otherwise.
"""
import base64
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(public_pem, token):
    """Returns (header, claims) or raises ValueError."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS")
    header, claims = json.loads(b64url(parts[0])), json.loads(b64url(parts[1]))
    signature = b64url(parts[2])
    signing_input = (parts[0] + "." + parts[1]).encode()
    key = serialization.load_pem_public_key(public_pem)
    try:
        if header.get("alg") == "ES256":
            if not isinstance(key, ec.EllipticCurvePublicKey) or len(signature) != 64:
                raise ValueError("ES256 needs a P-256 key and a 64-byte r||s signature")
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                       int.from_bytes(signature[32:], "big"))
            key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        elif header.get("alg") == "RS256":
            if not isinstance(key, rsa.RSAPublicKey):
                raise ValueError("RS256 needs an RSA key")
            key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            raise ValueError("unsupported alg %r" % header.get("alg"))
    except InvalidSignature:
        raise ValueError("bad signature")
    return header, claims


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        pem = f.read()
    try:
        h, c = verify(pem, sys.argv[2])
    except ValueError as e:
        print("invalid: %s" % e)
        sys.exit(1)
    print(json.dumps({"header": h, "claims": c}, sort_keys=True))
