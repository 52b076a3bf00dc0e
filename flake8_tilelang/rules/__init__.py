"""Rule modules. Importing this package registers every rule."""
from . import config_hygiene, cross_core, cv_split, internal, launch, sync_and_scope  # noqa: F401
