"""Settings of the upstream services Bio-MCP calls."""

from __future__ import annotations

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings

from bio_mcp import __version__
from bio_mcp.config.fields import SETTINGS_CONFIG, HttpUrl, OptionalText


class NcbiSettings(BaseSettings):
    """NCBI E-utilities (the PubMed gateway, the corpus sync, the analyst's literature)."""

    model_config = SETTINGS_CONFIG

    ncbi_api_key: OptionalText = Field(
        default=None, validation_alias="NCBI_API_KEY",
        description='NCBI API key: raises the E-utilities limit from 3 to 10 requests per second.',
    )
    ncbi_tool: str = Field(
        default=f"bio-mcp/{__version__}", validation_alias="NCBI_TOOL_IDENTIFIER",
        description='The tool name sent to NCBI with every request.',
    )
    ncbi_email: OptionalText = Field(
        default=None, validation_alias="NCBI_ADMIN_EMAIL",
        description='Contact email sent to NCBI with every request, as NCBI asks.',
    )
    # NCBI grants more than 10 per second to an API key on request, for E-utilities only (NLM support
    # article KA-05318); its other services (the PMC ID converter) stay at 10.
    ncbi_api_key_rps: float | None = Field(
        default=None, gt=10, le=100, validation_alias="NCBI_API_KEY_RPS",
        description="E-utilities requests per second NCBI has granted this API key, when above 10 (an "
                    "enhanced key); unset: 10 with a key, 3 without.",
    )
    ncbi_request_delay_ms: int = Field(
        default=0, ge=0, le=60_000, validation_alias="NCBI_REQUEST_DELAY_MS",
        description="Minimum milliseconds between NCBI requests (0: NCBI's own limit); it only slows.",
    )
    ncbi_max_retries: int = Field(
        default=3, ge=0, le=10, validation_alias="NCBI_MAX_RETRIES",
        description='Retries of a failed NCBI request (429, 5xx, timeouts).',
    )
    ncbi_base_url: HttpUrl = Field(
        default="https://eutils.ncbi.nlm.nih.gov/entrez/eutils", validation_alias="NCBI_EUTILS_BASE_URL",
        description='E-utilities base URL.',
    )
    ncbi_timeout_s: float = Field(
        default=15.0, gt=0, le=300, validation_alias="NCBI_TIMEOUT_S",
        description='Deadline of one NCBI call, retries included, in seconds.',
    )
    # Requests are counted over one second plus this, so uneven travel to NCBI cannot put one more
    # than the limit in any second of NCBI's count (they leave at least a second apart; see
    # sources/ratelimit.py). Widen it for a long or jittery path to NCBI.
    ncbi_rate_margin_ms: int = Field(
        default=20, ge=0, le=500, validation_alias="NCBI_RATE_MARGIN_MS",
        description="Milliseconds added to NCBI's one-second window when counting requests.",
    )
    # One attempt's share of a call's deadline (NCBI_TIMEOUT_S): a slow answer leaves time to retry.
    ncbi_attempt_timeout_s: float = Field(
        default=6.0, gt=0, le=300, validation_alias="NCBI_ATTEMPT_TIMEOUT_S",
        description='Deadline of one NCBI attempt, in seconds.',
    )
    # Answers larger than this are refused (UPSTREAM). 32 MiB is several times a 200-record EFetch.
    ncbi_max_body_bytes: int = Field(
        default=32 * 1024 * 1024, ge=1024, le=2**31, validation_alias="NCBI_MAX_BODY_BYTES",
        description='Largest NCBI answer accepted, in bytes.',
    )

    @model_validator(mode="after")
    def _granted_rate_needs_a_key(self) -> NcbiSettings:
        if self.ncbi_api_key_rps is not None and not self.ncbi_api_key:
            raise ValueError("NCBI_API_KEY_RPS is the rate granted to an API key: set NCBI_API_KEY too")
        return self

    @property
    def ncbi_requests_per_second(self) -> float:
        """NCBI's ceiling for its services other than E-utilities (10/s with a key, 3/s without);
        the configured delay may only slow it."""
        return self._slowed(10.0 if self.ncbi_api_key else 3.0)

    @property
    def eutils_requests_per_second(self) -> float:
        """E-utilities' ceiling: the rate granted to the key (NCBI_API_KEY_RPS), else NCBI's own."""
        return self._slowed(self.ncbi_api_key_rps or (10.0 if self.ncbi_api_key else 3.0))

    def _slowed(self, ceiling: float) -> float:
        if self.ncbi_request_delay_ms > 0:
            return min(ceiling, 1000.0 / self.ncbi_request_delay_ms)
        return ceiling


class CtgovSettings(BaseSettings):
    """ClinicalTrials.gov API v2 (the trial tools and the analyst)."""

    model_config = SETTINGS_CONFIG

    ctgov_base_url: HttpUrl = Field(
        default="https://clinicaltrials.gov/api/v2", validation_alias="CTGOV_BASE_URL",
        description='ClinicalTrials.gov API v2 base URL.',
    )
    ctgov_rps: float = Field(
        default=1.0, gt=0, le=50, validation_alias="CTGOV_RPS",
        description='ClinicalTrials.gov requests per second.',
    )
    ctgov_max_retries: int = Field(
        default=3, ge=0, le=10, validation_alias="CTGOV_MAX_RETRIES",
        description='Retries of a failed ClinicalTrials.gov request.',
    )
    ctgov_timeout_s: float = Field(
        default=15.0, gt=0, le=300, validation_alias="CTGOV_TIMEOUT_S",
        description='Deadline of one ClinicalTrials.gov call, retries included, in seconds.',
    )
    ctgov_attempt_timeout_s: float = Field(
        default=6.0, gt=0, le=300, validation_alias="CTGOV_ATTEMPT_TIMEOUT_S",
        description='Deadline of one ClinicalTrials.gov attempt, in seconds.',
    )
    # A 1,000-study page with every field is the largest answer the client asks for.
    ctgov_max_body_bytes: int = Field(
        default=64 * 1024 * 1024, ge=1024, le=2**31, validation_alias="CTGOV_MAX_BODY_BYTES",
        description='Largest ClinicalTrials.gov answer accepted, in bytes.',
    )


class Pubtator3Settings(BaseSettings):
    """NCBI PubTator3 (`pubtator_annotations`)."""

    model_config = SETTINGS_CONFIG

    # NCBI asks for no more than three requests per second.
    pubtator3_base_url: HttpUrl = Field(
        default="https://www.ncbi.nlm.nih.gov/research/pubtator3-api", validation_alias="PUBTATOR3_BASE_URL",
        description='PubTator3 API base URL.',
    )
    pubtator3_rps: float = Field(
        default=3.0, gt=0, le=3, validation_alias="PUBTATOR3_RPS",
        description='PubTator3 requests per second (NCBI asks for at most 3).',
    )
    pubtator3_max_retries: int = Field(
        default=3, ge=0, le=10, validation_alias="PUBTATOR3_MAX_RETRIES",
        description='Retries of a failed PubTator3 request.',
    )
    pubtator3_timeout_s: float = Field(
        default=20.0, gt=0, le=300, validation_alias="PUBTATOR3_TIMEOUT_S",
        description='Deadline of one PubTator3 call, retries included, in seconds.',
    )
    pubtator3_attempt_timeout_s: float = Field(
        default=8.0, gt=0, le=300, validation_alias="PUBTATOR3_ATTEMPT_TIMEOUT_S",
        description='Deadline of one PubTator3 attempt, in seconds.',
    )
    # A full-text BioC document is about 1 MB; a batch of 100 abstracts a few MB.
    pubtator3_max_body_bytes: int = Field(
        default=32 * 1024 * 1024, ge=1024, le=2**31, validation_alias="PUBTATOR3_MAX_BODY_BYTES",
        description='Largest PubTator3 answer accepted, in bytes.',
    )
    # Annotations of a PMID are kept this long in memory (PubTator3 updates weekly).
    pubtator3_cache_ttl_s: int = Field(
        default=86_400, ge=0, le=7 * 86_400, validation_alias="PUBTATOR3_CACHE_TTL_S",
        description="Seconds a PMID's PubTator3 annotations are kept in memory (0: never).",
    )


class LiteratureSettings(BaseSettings):
    """Europe PMC, NCBI's PMC ID Converter and Unpaywall (search, citations, full text)."""

    model_config = SETTINGS_CONFIG

    # Europe PMC's developer forum gives the throttle as 10 requests/second and 500/minute;
    # 8/s keeps both, as every request goes through one limiter.
    europepmc_base_url: HttpUrl = Field(
        default="https://www.ebi.ac.uk/europepmc/webservices/rest", validation_alias="EUROPEPMC_BASE_URL",
        description='Europe PMC REST API base URL.',
    )
    europepmc_rps: float = Field(
        default=8.0, gt=0, le=10, validation_alias="EUROPEPMC_RPS",
        description='Europe PMC requests per second.',
    )
    europepmc_max_retries: int = Field(
        default=3, ge=0, le=10, validation_alias="EUROPEPMC_MAX_RETRIES",
        description='Retries of a failed Europe PMC request.',
    )
    europepmc_timeout_s: float = Field(
        default=20.0, gt=0, le=300, validation_alias="EUROPEPMC_TIMEOUT_S",
        description='Deadline of one Europe PMC call, retries included, in seconds.',
    )
    europepmc_attempt_timeout_s: float = Field(
        default=8.0, gt=0, le=300, validation_alias="EUROPEPMC_ATTEMPT_TIMEOUT_S",
        description='Deadline of one Europe PMC attempt, in seconds.',
    )
    # A 1,000-record core page is about 25 MB.
    europepmc_max_body_bytes: int = Field(
        default=48 * 1024 * 1024, ge=1024, le=2**31, validation_alias="EUROPEPMC_MAX_BODY_BYTES",
        description='Largest Europe PMC answer accepted, in bytes.',
    )
    literature_cache_ttl_s: float = Field(
        default=600.0, ge=0, le=86_400, validation_alias="LITERATURE_CACHE_TTL_S",
        description='Seconds an identical Europe PMC, ID Converter or Unpaywall answer is reused (0: never).',
    )
    # The ID Converter shares the E-utilities rate limit.
    idconv_base_url: HttpUrl = Field(
        default="https://www.ncbi.nlm.nih.gov/pmc/utils/idconv/v1.0", validation_alias="NCBI_IDCONV_BASE_URL",
        description='NCBI PMC ID Converter base URL (PMID, PMCID and DOI to one another).',
    )
    unpaywall_base_url: HttpUrl = Field(
        default="https://api.unpaywall.org/v2", validation_alias="UNPAYWALL_BASE_URL",
        description='Unpaywall API base URL.',
    )
    unpaywall_email: OptionalText = Field(
        default=None, validation_alias="UNPAYWALL_EMAIL",
        description='Email Unpaywall requires on every request (default: NCBI_ADMIN_EMAIL).',
    )


class ModelApiSettings(BaseSettings):
    """Hosted model APIs kb.search may use: Jina embeddings and rerankers, Cohere rerankers."""

    model_config = SETTINGS_CONFIG

    jina_api_key: OptionalText = Field(
        default=None, validation_alias="JINA_API_KEY",
        description='Jina API key (embeddings and reranker).',
    )
    jina_base_url: HttpUrl = Field(
        default="https://api.jina.ai", validation_alias="JINA_BASE_URL",
        description='Jina API base URL.',
    )
    jina_embeddings_model: str = Field(
        default="jina-embeddings-v3", validation_alias="JINA_EMBEDDINGS_MODEL",
        description='Jina embeddings model.',
    )
    jina_reranker_model: str = Field(
        default="jina-reranker-v2-base-multilingual", validation_alias="JINA_RERANKER_MODEL",
        description='Jina reranker model.',
    )
    cohere_api_key: OptionalText = Field(
        default=None, validation_alias="COHERE_API_KEY",
        description='Cohere API key (reranker).',
    )
    cohere_base_url: HttpUrl = Field(
        default="https://api.cohere.com", validation_alias="COHERE_BASE_URL",
        description='Cohere API base URL.',
    )
    cohere_rerank_model: str = Field(
        default="rerank-english-v3.0", validation_alias="COHERE_RERANK_MODEL",
        description='Cohere rerank model.',
    )
