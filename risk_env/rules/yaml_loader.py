"""The safe YAML loader of the settings files: rules files read with it, and training configs with a subclass of it
(:mod:`risk_env.train.config`, which also reads YAML 1.2's exponent floats). It refuses a key given twice in one
mapping (PyYAML keeps the last silently, so ``trainer: device`` then ``trainer: sb3`` trained with sb3 and no word).

>>> import yaml
>>> yaml.load("a: 1\\nb: 2\\n", Loader=UniqueKeyLoader)
{'a': 1, 'b': 2}
>>> yaml.load("a: 1\\na: 2\\n", Loader=UniqueKeyLoader)
Traceback (most recent call last):
...
yaml.constructor.ConstructorError: the key 'a' is given twice (lines 1 and 2); a key may appear once in a mapping
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import yaml

__all__ = ["UniqueKeyLoader"]


class UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping holding one key twice (a ``yaml.constructor.ConstructorError``,
    a ``yaml.YAMLError``, naming the key and both lines). Keys brought in by a merge (``<<: *base``) may be overridden, as
    YAML allows."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, Hashable):
                    continue  # (refused by PyYAML itself as an unhashable key)
                if key in seen:
                    lines = f"lines {seen[key].start_mark.line + 1} and {key_node.start_mark.line + 1}"
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice ({lines}); a key may appear once in a mapping"
                    )
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)
