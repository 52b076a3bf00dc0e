from .ir.transform import PassContext  # noqa: F401
