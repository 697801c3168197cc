"""The bundled evaluator: scores GUI world models on strict A/B pairs (seed 002 Section 4.1, Appendices C.4,
C.5, E and F.5).

Predicted HTML is rendered offline in headless Chromium (:mod:`emukit.evaluate.render`), its viewport-visible
text and control evidence is read with the visibility rules of Appendix C.4 (:mod:`emukit.evaluate.visible`),
and deterministic family parsers turn that evidence into semantic outcomes
(:mod:`emukit.evaluate.parsers`).
"""
