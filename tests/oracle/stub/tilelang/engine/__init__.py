from .lower import lower, is_device_call  # noqa: F401
