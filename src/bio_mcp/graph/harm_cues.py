"""What one sentence says an agent (a plant, a chemical) does to a disease or symptom it names: harm
("caused", "induced", "worsened", "was associated with", "increased the risk of"), and whether
that harm is denied ("did not cause") or hedged ("may cause", "possible risk of").

A pair model that reads cue words may still state a treatment where the words say harm ("Garlic
juice ... mainly caused bradycardia", "high garlic dose induced anemia", "agents causing
occupational asthma"): the plant relation extractor (`graph/relations.py`) asks `harm_between`
of each pair it states and never makes a harm a TREATS.

    harm_between(text, agent=(10, 16), effect=(40, 51))   # -> HARM, ASSOCIATED, NEGATED, HEDGED or None

Read between the two names only (the sentence's other clauses speak of other things):
- agent first: a harm cue between them ("X caused Y", "X increased the risk of Y"), unless a
  benefit cue comes before it (the agent acts on another agent's harm: "X attenuated the
  cisplatin-induced Y", "X in alloxan-induced diabetic rats") or after it (the harm cue heads a
  benefit: "X was associated with a lower risk of Y", "X led to a reduction of Y"); an "induced"
  fused to another word ("cisplatin-induced") or after "in|on|of <another agent>" is that agent's;
- effect first: "Y induced|caused by X", "Y due to|after|following X", "Y associated with X",
  "hypersensitivity|allergy to X", with no benefit cue between them ("Y induced by CCl4 was prevented by X").
A negation before the cue (same clause) makes it NEGATED; a hedge ("may", "might", "could",
"possibly", "suspected") or a question ("Does X cause Y?") HEDGED; a cue of association or risk
("associated with", "X-related Y", "risk of", "after") ASSOCIATED: none of these is a treatment,
and none a stated cause.

`benefit_denied` reads the other denial: "X did not inhibit Y", "X suppresses A but not Y".

The plant relation extractor reads both as guards; the adverse-effect model (`graph/adverse_effects.py`)
weighs each reading as a feature of a chemical x disease pair.
"""

from __future__ import annotations

import re

HARM, ASSOCIATED, NEGATED, HEDGED = "harm", "associated", "negated", "hedged"

_HARM_AFTER_AGENT = re.compile(
    r"(?<![\w-])(?:caus(?:e|es|ed|ing)|induc(?:e|es|ed|ing)|provok\w*|trigger\w*|worsen\w*|exacerbat\w*|"
    r"aggravat\w*|precipitat\w*|promot(?:e|es|ed|ing)|produc(?:e|es|ed|ing)|associated with|"
    r"linked (?:to|with)|led to|lead(?:s|ing)? to|involved in the (?:onset|development|pathogenesis)|"
    r"result(?:s|ed|ing)? in|increas\w* (?:the )?(?:risk|incidence|frequency|severity)|risk (?:factors? )?(?:of|for)|"
    r"responsible for|toxic(?:ity)?|poisoning|adverse|side[- ]effects?|complications?)\b",
    re.IGNORECASE,
)
_HARM_AFTER_EFFECT = re.compile(
    r"\b(?:(?:induced|caused|provoked|triggered|precipitated|aggravated|worsened|exacerbated) by|"
    r"due to|secondary to|attributed to|attributable to|associated with|related to|linked (?:to|with)|"
    r"after|following)\b",
    re.IGNORECASE,
)
_BENEFIT = re.compile(
    r"\b(?:reduc|decreas|lower|inhibit|suppress|attenuat|ameliorat|alleviat|prevent|protect|against|treat|"
    r"therap|reliev|improv|revers|block|mitigat|counteract|combat|cur(?:e|es|ed|ing)\b|heal|diminish|"
    r"down-?regulat|antagoni|benefi|remed|apopto|abolish|normali[sz]|restor|recover|less\b|fewer\b|low\b|"
    r"inverse|used\b|useful|to contain\b)",
    re.IGNORECASE,
)
# After the harm cue, the words that turn it into a benefit ("associated with a lower risk of").
_BENEFIT_AFTER = re.compile(
    r"\b(?:reduc|decreas|lower|inhibit|suppress|attenuat|ameliorat|alleviat|prevent|protect|improv|revers|"
    r"diminish|less\b|fewer\b|low\b|benefi|recover|normali[sz]|restor|"
    # What an agent "induces" in a tumour or its cells is their end: "induces apoptosis in cancer cells".
    r"apopto|anoikis|death|arrest|regression|necrosis of|autophag|differentiation|cytotox|anti)",
    re.IGNORECASE,
)
# "X-induced Y", "X-related Y": the effect is the agent's.
_FUSED = re.compile(r"\s*(?:(?:extracts?|juice|oil|powder|decoction|intake|consumption|exposure|use)\s*)?"
                    r"-\s*(induced|caused|provoked|related|associated)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
# "hypersensitivity to X", "allergy to X": the effect named first, the agent what it is a reaction to.
_REACTION = re.compile(r"(?:\w+\s+)*(?:allerg\w*|hypersensitiv\w*|sensiti[sz]\w*|intoleran\w*)", re.IGNORECASE)
_TO = re.compile(r"\s*to\s+(?:the\s+)?", re.IGNORECASE)
# "X can be toxic", "X has been proved to be oncogenic": a harmful property, said of the agent.
_COPULA = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+\s+)?$", re.IGNORECASE)
_HARMFUL = re.compile(r"(?:\w+-)?(?:toxic|cytotoxic|hepatotoxic|nephrotoxic|neurotoxic|cardiotoxic|genotoxic|"
                      r"oncogenic|carcinogenic|mutagenic|teratogenic|allergenic|poisonous|harmful|abortifacient)",
                      re.IGNORECASE)
# "in|on|of <agent>-induced ...": a model of the disease another agent induces, which the first acts on.
_OTHER_AGENT = re.compile(r"\b(?:in|on|of|with|against|by)\s+(?:[\w,]+\s+){0,2}[\w,]+[\s-]*$", re.IGNORECASE)
_ANTI = re.compile(r"anti-?$", re.IGNORECASE)
_QUESTION = re.compile(r"[^.!?]*\?")
# Cues that say the two go together, not that one causes the other.
_ASSOCIATION = re.compile(r"associated with|linked (?:to|with)|related to|risk (?:factors? )?(?:of|for)|after|following",
                          re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|without|failed to|lack(?:ed|s)? of|absence of)\b",
                       re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:may|might|could|possibl[ey]|potential(?:ly)?|suspected|probabl[ey]|likely|"
                    r"suggest\w*|whether)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[;:]|,\s*(?:but|whereas|while|although)\b|\b(?:but|whereas|while|although)\b", re.IGNORECASE)
# An agent first and its effect this far on is seldom the cue's subject; an effect named first is
# said to be caused by an agent right after it ("anemia induced by garlic").
_MAX_GAP = 200
_MAX_GAP_EFFECT_FIRST = 60
# A relative clause between the two has another subject ("... of HSE, since amino acids, which is
# associated with obesity").
_RELATIVE = re.compile(r"\b(?:which|who|whose)\b", re.IGNORECASE)


def harm_between(text: str, agent: tuple[int, int], effect: tuple[int, int]) -> str | None:
    """HARM, ASSOCIATED (an association or a risk, not a cause), NEGATED or HEDGED when the words
    between `agent` and `effect` (offsets into `text`) speak of the agent as a harm with the
    effect, else None (see the module docstring)."""
    if _ANTI.search(text, max(0, effect[0] - 5), effect[0]):
        return None  # "anti-arrhythmic": the effect's name inside a benefit's
    reading = _read(text, agent, effect)
    # "Does paracetamol cause renal papillary necrosis?" asks; it does not say.
    if reading in (HARM, ASSOCIATED) and _QUESTION.match(text, max(agent[1], effect[1])):
        return HEDGED
    return reading


def _read(text: str, agent: tuple[int, int], effect: tuple[int, int]) -> str | None:
    """The reading before a question is told from a statement."""
    if agent[1] <= effect[0]:
        between = text[agent[1] : effect[0]]
        if len(between) > _MAX_GAP:
            return None
        fused = _FUSED.match(between)
        if fused:
            return ASSOCIATED if fused.group(1).lower() in ("related", "associated") else HARM
        if _COPULA.search(between) and _HARMFUL.fullmatch(text[effect[0] : effect[1]]):
            return _reading(_CLAUSE.split(between)[-1], "is")
        for match in _HARM_AFTER_AGENT.finditer(between):
            before, after = between[: match.start()], between[match.end() :]
            if _CLAUSE.search(after):
                continue  # the effect is in another clause ("... complication, although Y")
            clause = _CLAUSE.split(before)[-1]
            if _BENEFIT.search(clause) or _BENEFIT_AFTER.search(after) or (
                    match.group().lower().startswith("induc") and _OTHER_AGENT.search(clause)):
                return None
            return _reading(clause + " " + match.group(), match.group())
        return None
    if effect[1] <= agent[0]:
        between = text[effect[1] : agent[0]]
        if _TO.fullmatch(between) and _REACTION.fullmatch(text[effect[0] : effect[1]]):
            return HARM
        if len(between) > _MAX_GAP_EFFECT_FIRST or _CLAUSE.search(between) or _RELATIVE.search(between):
            return None
        match = _HARM_AFTER_EFFECT.search(between)
        if match is None or _BENEFIT.search(between):
            return None
        # Only the words between: a negation before the effect is another subject's ("Z failed to
        # affect hyperactivity induced by amphetamine").
        return _reading(between[: match.end()], match.group())
    return None


def _reading(words: str, cue: str) -> str:
    if _NEGATION.search(words):
        return NEGATED
    if _HEDGE.search(words):
        return HEDGED
    return ASSOCIATED if _ASSOCIATION.fullmatch(cue) else HARM


# A benefit denied between an agent and the effect it names after ("X did not inhibit Y", "X failed
# to reduce Y", "X showed no effect on Y", "X suppresses A but not Y"); "not only" affirms.
_DENIED_BENEFIT = re.compile(
    r"\b(?:not|didn't|doesn't|failed to|unable to|no|neither|nor|without)\b(?!\s+only\b)(?!\s+surprise\b)",
    re.IGNORECASE)


def benefit_denied(text: str, agent: tuple[int, int], effect: tuple[int, int]) -> bool:
    """Whether the words between an agent and the effect it names after deny that it acts on the
    effect: a negation in the clause that ends at the effect."""
    if effect[0] < agent[1] or effect[0] - agent[1] > _MAX_GAP:
        return False
    clause = _CLAUSE.split(text[agent[1] : effect[0]])[-1]
    return _DENIED_BENEFIT.search(clause) is not None
