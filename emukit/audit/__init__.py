"""Audits of a built benchmark: the release audit (every stored pair re-checked from its artifacts, template
coverage; seed 002 Appendix C.1), repeated-execution stability (C.8) and train/evaluation split integrity
(C.2). ``emukit audit release|stability|split``; see docs/audits.md."""
