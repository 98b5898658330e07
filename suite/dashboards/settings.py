"""Which W&B mode a sweep logs in, decided once, so that W&B never blocks or fails a sweep.

``resolve_mode`` turns what the user asked for (``--wandb off|offline|online`` or nothing) into
the mode that can actually work here: offline when no API key is configured, off when the
``wandb`` package is missing, online only with a key and a reachable server. Each downgrade
logs one warning and the sweep goes on.
"""

from __future__ import annotations

import configparser
import logging
import netrc
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

MODES = ("off", "offline", "online")
DEFAULT_BASE_URL = "https://api.wandb.ai"
NETWORK_TIMEOUT_S = 3.0
# wandb's own WANDB_MODE values, in our vocabulary.
WANDB_MODE_ALIASES = {
    "disabled": "off",
    "offline": "offline",
    "dryrun": "offline",
    "online": "online",
}

log = logging.getLogger(__name__)


class WandbModeError(ValueError):
    """An unknown W&B mode was asked for."""


@dataclass(frozen=True)
class WandbSettings:
    """Where and how a sweep logs to W&B."""

    mode: str = "offline"
    """off, offline or online (see resolve_mode)."""
    entity: str | None = None
    """W&B entity (user or team); None: the key's default entity."""
    project: str | None = None
    """W&B project; None: the sweep's name."""
    dir: Path | None = None
    """The results directory; wandb writes its files under ``<dir>/wandb/``."""

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def project_for(self, sweep_name: str) -> str:
        return self.project or sweep_name


def resolve_settings(
    requested: str | None,
    results_dir: str | os.PathLike,
    entity: str | None = None,
    project: str | None = None,
) -> WandbSettings:
    """The settings for a sweep writing to ``results_dir``, with a mode that can work here."""
    return WandbSettings(resolve_mode(requested), entity, project, Path(results_dir))


def resolve_mode(requested: str | None) -> str:
    """The W&B mode to use: ``requested`` if it can work here, else the best that can.

    ``None`` means: ``WANDB_MODE`` if set, else online when an API key is configured and
    offline otherwise.
    """
    if requested is None:
        requested = WANDB_MODE_ALIASES.get(os.environ.get("WANDB_MODE", ""))
    if requested is not None and requested not in MODES:
        raise WandbModeError(f"unknown W&B mode {requested!r}: use one of {', '.join(MODES)}")
    if requested == "off":
        return "off"
    if not wandb_importable():
        log.warning("wandb is not installed: logging to W&B is off (pip install wandb)")
        return "off"
    if requested == "offline":
        return "offline"
    if not has_api_key():
        if requested == "online":
            log.warning("no W&B API key found: logging offline (wandb login, then wandb sync)")
        return "offline"
    if not server_reachable():
        log.warning("W&B server %s unreachable: logging offline (wandb sync later)", base_url())
        return "offline"
    return "online"


def wandb_importable() -> bool:
    try:
        import wandb  # noqa: F401
    except ImportError:
        return False
    return True


def has_api_key() -> bool:
    """True when wandb would find an API key: env, ~/.netrc or wandb's own settings file."""
    return bool(
        os.environ.get("WANDB_API_KEY")
        or os.environ.get("WANDB_IDENTITY_TOKEN_FILE")
        or netrc_api_key()
        or settings_file_api_key()
    )


def base_url() -> str:
    return os.environ.get("WANDB_BASE_URL", DEFAULT_BASE_URL)


def netrc_api_key() -> str | None:
    path = Path(os.environ.get("NETRC", "~/.netrc")).expanduser()
    try:
        entry = netrc.netrc(path).authenticators(urlsplit(base_url()).hostname or "")
    except (OSError, netrc.NetrcParseError):
        return None
    return entry[2] if entry else None


def settings_file_api_key() -> str | None:
    config_dir = os.environ.get("WANDB_CONFIG_DIR", "~/.config/wandb")
    parser = configparser.ConfigParser()
    parser.read(Path(config_dir).expanduser() / "settings")
    return parser.get("default", "api_key", fallback=None)


def server_reachable(timeout_s: float = NETWORK_TIMEOUT_S) -> bool:
    """A TCP connection to the W&B server opens within ``timeout_s``."""
    url = urlsplit(base_url())
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout_s):
            return True
    except OSError:
        return False
