"""The bundled evaluator: scores GUI world models on strict A/B pairs (seed 002 Section 4.1, Appendices C.4,
C.5, E and F.5).

Predicted HTML is rendered offline in headless Chromium (:mod:`emukit.evaluate.render`), its viewport-visible
text and control evidence is read with the visibility rules of Appendix C.4 (:mod:`emukit.evaluate.visible`),
and deterministic family parsers turn that evidence into semantic outcomes
(:mod:`emukit.evaluate.parsers`).

A state family's pieces of this layer are modules named after it, each found by the family's name through a
registry: its reader (the parser, the judge's rule, the pair's prediction-time context:
``parsers/<family>.py``), the baseline estimator's rules (``baseline/<family>.py``) and the surface the
``ref:surface`` reference model draws (``surfaces/<family>.py``).
"""
