"""Modules imported on first use: the one mechanism that keeps `teamchat serve`'s start lean.

A module that serving rarely needs (an image library, a stemmer, an importer, an exporter)
is bound at the top of the module that uses it, under its usual name, with the real import
kept for the type checker and the layer test:

    if TYPE_CHECKING:
        from PIL import Image
    else:
        Image = lazy_module("PIL.Image")

The name is imported the first time one of its attributes is read (by `importlib`, whose
per-module locks make a first use from two threads at once safe); until then nothing of it
is loaded. Must not import any other teamchat module.
"""

from __future__ import annotations

import importlib
import types


class LazyModule(types.ModuleType):
    """A stand-in for module `__name__` that imports it when an attribute is first read."""

    def __getattr__(self, attribute: str) -> object:
        # Only reached for names the stand-in lacks, i.e. every name of the real module:
        # `importlib` returns the module from `sys.modules` after the first time.
        return getattr(importlib.import_module(self.__name__), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self.__name__!r}>"


def lazy_module(name: str) -> types.ModuleType:
    """A stand-in for the module `name` (absolute), imported when first used."""
    return LazyModule(name)


__all__ = ["LazyModule", "lazy_module"]
