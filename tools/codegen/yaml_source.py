"""Reads the operator yaml files keeping where each entry starts, so that
every codegen error about an entry can say `file:line`."""

from __future__ import annotations

import yaml


class Entry(dict):
    """One mapping of a yaml list, with the place it was written."""

    path: str = "<yaml>"
    line: int = 0

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


class _Loader(yaml.SafeLoader):
    pass


def _construct_entry(loader: _Loader, node: yaml.MappingNode) -> Entry:
    entry = Entry(loader.construct_mapping(node, deep=True))
    entry.path = loader.source_path
    entry.line = node.start_mark.line + 1
    return entry


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_entry)


def parse_entries(text: str, path: str = "<yaml>") -> list[Entry]:
    """The list of entries in yaml `text`; `path` is what errors call it."""
    loader = _Loader(text)
    loader.source_path = path
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(e, Entry) for e in data):
        raise yaml.YAMLError(f"{path}: expected a list of mappings")
    return data


def load_entries(path: str) -> list[Entry]:
    with open(path) as f:
        return parse_entries(f.read(), path)
