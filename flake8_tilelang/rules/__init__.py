"""Rule modules. Importing this package registers every rule."""
from . import internal, launch, sync_and_scope  # noqa: F401
