"""A throwaway self-signed certificate for localhost / 127.0.0.1, made with openssl."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TlsFiles:
    """``cert`` is also the CA file clients verify against (the certificate signs itself)."""

    cert: Path
    key: Path


def make_certificate(directory: Path, name: str = "server") -> TlsFiles:
    """Write ``NAME.pem`` and ``NAME.key`` (EC P-256, SAN DNS:localhost, IP:127.0.0.1)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("openssl is not installed: run `bash scripts/install-test-services`")
    directory = Path(directory)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )
    cert.chmod(0o644)
    key.chmod(0o600)
    return TlsFiles(cert=cert, key=key)
