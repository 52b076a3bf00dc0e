"""Rule modules. Importing this package registers every rule."""
from . import (  # noqa: F401
    chip_limits,
    config_hygiene,
    cross_core,
    cv_split,
    handoff,
    internal,
    launch,
    memory,
    scopes_pipes,
    sync_and_scope,
)
