"""Offline test doubles: fake NCBI E-utilities and ClinicalTrials.gov API v2 servers over real recorded data.

from bio_mcp.testing import run_fakes

with run_fakes(data_dir) as fakes:
    fakes.eutils_base_url   # http://127.0.0.1:PORT/entrez/eutils
    fakes.ctgov_base_url    # http://127.0.0.1:PORT/api/v2
    fakes.eutils.inject(fakes.eutils.rate_limited(), times=2)
    fakes.eutils.requests   # the arrival log
"""

from bio_mcp.testing.ctgov_fake import FakeClinicalTrials
from bio_mcp.testing.eutils_fake import FakeEutils
from bio_mcp.testing.fakes_app import FakesApp, RunningFakes, build_fakes_app, run_fakes, serve_fakes
from bio_mcp.testing.faults import Arrival, ArrivalLog, Fault, FaultPlan, FaultRule, RateLimit, RequestInfo

__all__ = [
    "Arrival",
    "ArrivalLog",
    "FakeClinicalTrials",
    "FakeEutils",
    "FakesApp",
    "Fault",
    "FaultPlan",
    "FaultRule",
    "RateLimit",
    "RequestInfo",
    "RunningFakes",
    "build_fakes_app",
    "run_fakes",
    "serve_fakes",
]
