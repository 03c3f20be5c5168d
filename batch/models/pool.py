"""The models of one batch, one per role, built on first use.

Building lazily means a rerun with nothing left to do never loads a model file.
"""

from __future__ import annotations

import threading
from pathlib import Path

from batch.config import Models, ModelSettings
from batch.errors import ConfigError
from batch.models.base import RoleModel
from batch.models.factory import build_role_model
from batch.models.hosts import SlotGate

ROLES = ("writer", "critic", "finalizer")


class ModelSet:
    def __init__(
        self,
        settings: Models,
        cache_dir: Path,
        ready: dict[str, RoleModel | None] | None = None,
        gate: SlotGate | None = None,
    ):
        """`gate`: the hosts' slots shared with other processes (a cluster's)."""
        self.settings = settings
        self.cache_dir = cache_dir
        self.gate = gate
        self._built: dict[str, RoleModel | None] = dict(ready or {})
        # Roles with the same Ollama model and hosts count their calls together.
        self._host_pools: dict = {}
        self._lock = threading.Lock()

    def settings_for(self, role: str) -> ModelSettings | None:
        return getattr(self.settings, role)

    def get(self, role: str) -> RoleModel | None:
        with self._lock:
            if role not in self._built:
                settings = self.settings_for(role)
                if settings is None:
                    self._built[role] = None
                else:
                    self._built[role] = build_role_model(
                        settings, self.cache_dir, role, self._host_pools, self.gate
                    )
            return self._built[role]

    def required(self, role: str) -> RoleModel:
        """The model of a role the loop cannot run without (the writer, the critic)."""
        model = self.get(role)
        if model is None:
            raise ConfigError(f"no model for the {role}: set [models.{role}]")
        return model

    def labels(self) -> dict[str, str]:
        """The model of each role the batch asks (`critic_mode = "checks"` asks none of
        the critic)."""
        out = {}
        for role in ROLES:
            if role == "critic" and self.settings.critic_mode == "checks":
                continue
            model = self._built.get(role)
            if model is not None:
                out[role] = model.name
            elif (s := self.settings_for(role)) is not None:
                out[role] = s.label
        return out
