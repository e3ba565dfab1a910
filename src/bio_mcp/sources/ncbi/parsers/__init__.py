"""Parsers of NCBI E-utilities responses: bytes in, typed models out, NCBI's errors as BioMcpError."""

from bio_mcp.sources.ncbi.parsers.efetch import (
    ParseAbandoned,
    RequestedRecords,
    parse_efetch,
    parse_requested,
    split_articles,
    split_requested,
)
from bio_mcp.sources.ncbi.parsers.einfo import parse_einfo
from bio_mcp.sources.ncbi.parsers.elink import parse_elink
from bio_mcp.sources.ncbi.parsers.epost import parse_epost
from bio_mcp.sources.ncbi.parsers.errors import error_from_body, error_in_json, error_in_xml
from bio_mcp.sources.ncbi.parsers.esearch import parse_esearch
from bio_mcp.sources.ncbi.parsers.esummary import parse_esummary

__all__ = [
    "ParseAbandoned",
    "RequestedRecords",
    "error_from_body",
    "error_in_json",
    "error_in_xml",
    "parse_efetch",
    "parse_einfo",
    "parse_elink",
    "parse_epost",
    "parse_esearch",
    "parse_esummary",
    "parse_requested",
    "split_articles",
    "split_requested",
]
