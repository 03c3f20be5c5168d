"""Config -> RoleModel, one per role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from batch.config import ModelSettings
from batch.models.base import RoleModel
from batch.models.hosts import SlotGate


def build_role_model(
    settings: ModelSettings,
    cache_dir: Path,
    role: str = "",
    host_pools: dict[Any, Any] | None = None,
    gate: SlotGate | None = None,
) -> RoleModel:
    """`host_pools`: Ollama host pools to share between the roles built with it;
    `gate`: their hosts' slots shared with other processes."""
    if settings.provider == "ollama":
        from batch.models.ollama import build_ollama

        return build_ollama(settings, host_pools, gate)
    from batch.models.llamacpp import build_embedded

    return build_embedded(settings, cache_dir, role)
