"""Config -> RoleModel, one per role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from batch.config import ModelSettings
from batch.models.base import RoleModel


def build_role_model(settings: ModelSettings, cache_dir: Path, role: str = "",
                     host_pools: dict[Any, Any] | None = None) -> RoleModel:
    """`host_pools`: Ollama host pools to share between the roles built with it."""
    if settings.provider == "ollama":
        from batch.models.ollama import build_ollama

        return build_ollama(settings, host_pools)
    from batch.models.llamacpp import build_embedded

    return build_embedded(settings, cache_dir, role)
