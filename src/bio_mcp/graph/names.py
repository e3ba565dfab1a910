"""The names entities go by in each language (`kg_names`): Thai, English and scientific names of herbs
and formulations, read by search, answers and ingestion to match text to entities.

MeSH's own entry terms stay in the linker's vocabulary; this table holds the names imported on top
of it (`bio-mcp kg import`). Writing is idempotent: a name already stored keeps its first source.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.store.schema import kg_names

NameKind = Literal["preferred", "common", "scientific"]


@dataclass(frozen=True, slots=True)
class EntityName:
    entity_id: str
    lang: str
    name: str
    kind: NameKind
    source: str


def normalise_name(name: str) -> str:
    """One spelling per name: collapsed whitespace; Latin letters keep their case for display."""
    return " ".join(name.split())


def write_names(connection: Connection, names: Iterable[EntityName]) -> int:
    """Store the names not stored yet; returns how many were new."""
    rows = {
        (name.entity_id, name.lang, normalise_name(name.name)): name
        for name in names
        if normalise_name(name.name)
    }
    if not rows:
        return 0
    existing = set()
    ids = sorted({key[0] for key in rows})
    for start in range(0, len(ids), 500):
        batch = ids[start:start + 500]
        existing |= {
            (row.entity_id, row.lang, row.name)
            for row in connection.execute(
                sa.select(kg_names.c.entity_id, kg_names.c.lang, kg_names.c.name).where(kg_names.c.entity_id.in_(batch))
            )
        }
    new = [
        {"entity_id": key[0], "lang": key[1], "name": key[2], "kind": name.kind, "source": name.source}
        for key, name in sorted(rows.items())
        if key not in existing
    ]
    if new:
        connection.execute(sa.insert(kg_names), new)
    return len(new)


def names_of(connection: Connection, entity_ids: Sequence[str]) -> dict[str, list[EntityName]]:
    """Every stored name of each entity, preferred names first, then by language and name."""
    found: dict[str, list[EntityName]] = {}
    order = {"preferred": 0, "scientific": 1, "common": 2}
    for start in range(0, len(entity_ids), 500):
        batch = list(entity_ids[start:start + 500])
        for row in connection.execute(sa.select(kg_names).where(kg_names.c.entity_id.in_(batch))):
            found.setdefault(row.entity_id, []).append(
                EntityName(row.entity_id, row.lang, row.name, row.kind, row.source)
            )
    for names in found.values():
        names.sort(key=lambda n: (order.get(n.kind, 3), n.lang, n.name))
    return found


def all_names(connection: Connection, lang: str | None = None) -> list[EntityName]:
    """Every stored name (of one language), in a stable order: the dictionary a matcher is built from."""
    statement = sa.select(kg_names).order_by(kg_names.c.lang, kg_names.c.name, kg_names.c.entity_id)
    if lang is not None:
        statement = statement.where(kg_names.c.lang == lang)
    return [EntityName(row.entity_id, row.lang, row.name, row.kind, row.source) for row in connection.execute(statement)]


def entities_named(connection: Connection, name: str, lang: str | None = None) -> list[str]:
    """The entities that go by exactly `name` (whitespace-normalised), sorted."""
    statement = sa.select(kg_names.c.entity_id).where(kg_names.c.name == normalise_name(name)).distinct()
    if lang is not None:
        statement = statement.where(kg_names.c.lang == lang)
    return sorted(row.entity_id for row in connection.execute(statement))
