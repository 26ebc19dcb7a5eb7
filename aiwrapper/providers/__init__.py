"""Provider modules: one per wire format, pure data translation with no I/O.

Each module turns a neutral ``ProviderRequest`` into an ``HttpCall`` and the provider's answer
(framed stream chunks or a whole body) into neutral events, to the contract in
``aiwrapper._contract``. Each package exports a builder that the ``Lang`` factory of its
provider calls; packages are imported only then, so ``import aiwrapper`` stays fast.
"""
