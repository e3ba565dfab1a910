"""Base models for the tool contracts shared by every layer.

`ToolInput` makes an empty string (or null) in an optional field count as absent, at any depth,
so an agent that fills every optional parameter with "" gets the defaults instead of a broken
query. Required fields still reject empty strings through their own constraints. Calls through
the server are first held to the published JSON schema (`input_schema`), where null passes only
if the schema allows it.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StringConstraints, model_validator

# A required text that must say something: a blank query or id is the caller's mistake, refused
# as VALIDATION, not searched for and answered with "no results". The pattern is published in the
# input schema (unanchored, as JSON Schema's are: the text holds some non-space character).
NON_BLANK_PATTERN = r"\S"
NonBlank = Annotated[str, StringConstraints(min_length=1, pattern=NON_BLANK_PATTERN)]


def _drop_empty_optionals(model: type[BaseModel], data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    cleaned: dict[str, Any] = {}
    fields = model.model_fields
    by_alias = {(info.alias or name): name for name, info in fields.items()}
    for key, value in data.items():
        name = by_alias.get(key, key)
        info = fields.get(name)
        if info is not None and not info.is_required():
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            if isinstance(value, dict) and not any(
                v is not None and not (isinstance(v, str) and not v.strip()) for v in value.values()
            ):
                continue
        cleaned[key] = value
    return cleaned


class ToolInput(BaseModel):
    """Input of a tool. Unknown keys are rejected unless a contract says to strip them."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _empty_means_absent(cls, data: Any) -> Any:
        return _drop_empty_optionals(cls, data)


def _without_optional_nones(model: BaseModel, body: dict[str, Any]) -> dict[str, Any]:
    """`body` (`model` dumped by alias) without the None of fields that have a default, at any depth.
    A field without a default is required by the output schema, so its None stays (as null): an
    untitled document keeps `"title": null` where dropping every None left the key out and the
    result failed the schema."""
    for name, info in type(model).model_fields.items():
        key = info.serialization_alias or info.alias or name
        if key not in body:
            continue
        value, dumped = getattr(model, name), body[key]
        if dumped is None and not info.is_required():
            del body[key]
        elif isinstance(value, BaseModel) and isinstance(dumped, dict):
            _without_optional_nones(value, dumped)
        elif isinstance(value, list | tuple) and isinstance(dumped, list):
            for item, item_dumped in zip(value, dumped, strict=False):
                if isinstance(item, BaseModel) and isinstance(item_dumped, dict):
                    _without_optional_nones(item, item_dumped)
        elif isinstance(value, dict) and isinstance(dumped, dict):
            for item_key, item in value.items():
                if isinstance(item, BaseModel) and isinstance(dumped.get(item_key), dict):
                    _without_optional_nones(item, dumped[item_key])
    return body


class ToolOutput(BaseModel):
    """Output of a tool: serialised by alias; `omit_none` for contracts whose optional keys are
    omitted when None (a field without a default is required by the schema and is kept, as null)."""

    model_config = ConfigDict(populate_by_name=True)
    omit_none: ClassVar[bool] = False

    def to_json(self) -> dict[str, Any]:
        body = self.model_dump(mode="json", by_alias=True)
        return _without_optional_nones(self, body) if self.omit_none else body

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        return cls.model_json_schema(by_alias=True, mode="serialization")
