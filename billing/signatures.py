"""The provider's webhook signature (Paddle's scheme): `ts=<unix>;h1=<hex>...`, an HMAC-SHA256
of `<ts>:<raw body>`, several h1 and several secrets accepted, compared in constant time."""

import hashlib
import hmac


def signature_valid(
    header: str | None, body: bytes, *, secrets: list[str], now: float, tolerance: int
) -> bool:
    if not header or not secrets or len(header) > 2048:
        return False
    timestamp, signatures = None, []
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == "ts":
            timestamp = value
        elif key == "h1" and value:
            signatures.append(value)
    if not timestamp or not timestamp.isdigit() or not signatures:
        return False
    if abs(now - int(timestamp)) > tolerance:
        return False
    signed = timestamp.encode() + b":" + body
    expected = [hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest() for secret in secrets]
    valid = False
    for candidate in signatures:
        for digest in expected:
            # no early exit: every comparison runs, each in constant time
            valid |= hmac.compare_digest(candidate.encode(), digest.encode())
    return valid


def signature_header(body: bytes, *, secret: str, timestamp: int) -> str:
    """What the provider sends (tests and the local tools use it)."""
    digest = hmac.new(secret.encode(), f"{timestamp}:".encode() + body, hashlib.sha256)
    return f"ts={timestamp};h1={digest.hexdigest()}"
