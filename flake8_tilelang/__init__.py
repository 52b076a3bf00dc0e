"""flake8-tilelang: static checks for TileLang-Ascend kernels.

Importing this package must stay cheap: flake8 imports it in every run, for
every file, even for projects that contain no TileLang code.
"""

__version__ = "0.2.0"
