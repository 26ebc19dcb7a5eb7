"""Provider modules: one per wire format, pure data translation with no I/O.

Each module turns a neutral ``ProviderRequest`` into an ``HttpCall`` and the provider's answer
(framed stream chunks or a whole body) into neutral events. ``base.py`` holds the interface.
Provider modules are imported lazily by the ``Lang`` factories so ``import aiwrapper`` stays fast.
"""
