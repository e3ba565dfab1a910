"""Protobuf messages to and from the MCP tools' JSON (the mapping rules head `evidence.proto`).

`json_format` (and the message constructors) do most of it; what they leave differs from the MCP JSON in three ways, undone here,
guided by the message descriptors so that a new field needs no code: 64-bit integers come out as
strings (JSON's numbers may not hold them), a list of lists travels as a list of `{"items": [...]}`
messages, and a Struct's numbers are all doubles (a whole number is read back as an integer, as the
MCP JSON has it: `{"k": 5}`, not `{"k": 5.0}`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)

_INT64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
          FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
_STRUCT = "google.protobuf.Struct"
LIST_FIELD = "items"


def is_list_message(descriptor: Descriptor) -> bool:
    """A message standing for a JSON array inside an array: its only field is `repeated ... items`."""
    fields = descriptor.fields
    return len(fields) == 1 and fields[0].name == LIST_FIELD and fields[0].is_repeated


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _whole_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


def _from_proto(descriptor: Descriptor, body: dict[str, Any]) -> dict[str, Any]:
    for field in descriptor.fields:
        if field.name not in body:
            continue
        value = body[field.name]
        if field.type in _INT64:
            body[field.name] = [int(v) for v in value] if isinstance(value, list) else int(value)
        elif field.message_type is None or _is_map(field):
            continue
        elif field.message_type.full_name == _STRUCT:
            body[field.name] = _whole_numbers(value)
        elif is_list_message(field.message_type):
            inner = field.message_type.fields[0].message_type
            body[field.name] = [
                [_from_proto(inner, item) if inner is not None else item for item in row.get(LIST_FIELD, [])]
                for row in value
            ]
        elif isinstance(value, list):
            body[field.name] = [_from_proto(field.message_type, item) for item in value]
        else:
            body[field.name] = _from_proto(field.message_type, value)
    return body


def _to_proto(descriptor: Descriptor, body: dict[str, Any]) -> dict[str, Any]:
    shaped: dict[str, Any] = {}
    fields = descriptor.fields_by_name
    for key, value in body.items():
        field = fields.get(key)
        if value is None or field is None:
            continue  # null is an unset field; a key the proto lacks is not sent (the drift tests catch it)
        if field.message_type is None or _is_map(field) or field.message_type.full_name == _STRUCT:
            shaped[key] = value
        elif is_list_message(field.message_type):
            inner = field.message_type.fields[0].message_type
            shaped[key] = [{LIST_FIELD: [_to_proto(inner, item) if inner is not None else item for item in row]}
                           for row in value]
        elif isinstance(value, list):
            shaped[key] = [_to_proto(field.message_type, item) for item in value]
        else:
            shaped[key] = _to_proto(field.message_type, value)
    return shaped


def json_of(message: Message) -> dict[str, Any]:
    """The MCP JSON of a reply: every field, defaults included; an unset optional field is absent
    (where the MCP JSON has null)."""
    body = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return _from_proto(message.DESCRIPTOR, body)


def arguments_of(message: Message) -> dict[str, Any]:
    """The MCP arguments a request stands for: only the fields set, so the others take the tool's
    defaults, and the audit's in_hash is the MCP call's for the same arguments."""
    body = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return _from_proto(message.DESCRIPTOR, body)


def message_of(body: dict[str, Any], message_type: type[M]) -> M:
    """`body` (MCP JSON) as a `message_type`, built by the message's constructor, which takes nested
    dicts and lists (and a Struct's dict) in C: 2.8 ms for a herb of 400 constituents (79 KB of JSON),
    where `json_format.ParseDict` took 35 ms."""
    return message_type(**_to_proto(message_type.DESCRIPTOR, body))
