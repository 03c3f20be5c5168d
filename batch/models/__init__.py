"""Model providers behind one small interface (`RoleModel.complete`)."""

from batch.models.base import CallStat, Completion, RoleModel, Sampling, ask, write
from batch.models.factory import build_role_model
from batch.models.pool import ModelSet

__all__ = [
    "CallStat",
    "Completion",
    "ModelSet",
    "RoleModel",
    "Sampling",
    "ask",
    "build_role_model",
    "write",
]
