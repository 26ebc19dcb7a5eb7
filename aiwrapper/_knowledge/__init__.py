"""What aiwrapper knows of models: capabilities, limits and prices, and the per-model rules.

Owns the records (``_modelinfo``), the optional models.dev catalogue (``_catalogue``), the rows
of per-model rules and their merge (``_modelrules``), the lookups that ``aiwrapper.models``
exports (``_models``), their per-``Lang`` cache (``_modelfacts``), the tables the provider
packages publish (``_tables``), and each wire's documented limits for images and documents
(``_media_limits``). The provider packages stand above this layer, so ``_tables`` finds them
by name in the ``providers`` folder, as plugins, and never by an import statement.

May import: ``_conversation``, ``_wire`` and ``_errors``. Nothing above.
"""
