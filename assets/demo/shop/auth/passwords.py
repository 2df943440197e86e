"""Password hashing with PBKDF2 from the standard library."""

import hashlib
import hmac
import os

ITERATIONS = 2_000  # demo value; production config raises this
MIN_LENGTH = 8


def check_strength(password):
    problems = []
    if len(password) < MIN_LENGTH:
        problems.append("at least %d characters" % MIN_LENGTH)
    if password.isdigit() or password.isalpha():
        problems.append("mix letters and digits")
    return problems


def hash_password(password, salt=None):
    salt = salt if salt is not None else os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS)
    return "pbkdf2$%d$%s$%s" % (ITERATIONS, salt.hex(), digest.hex())


def verify_password(password, stored):
    try:
        scheme, iterations, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    if scheme != "pbkdf2":
        return False
    digest = hashlib.pbkdf2_hmac(
        "sha256", password.encode("utf-8"), bytes.fromhex(salt_hex), int(iterations)
    )
    return hmac.compare_digest(digest.hex(), digest_hex)
