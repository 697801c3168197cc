"""The strict-pair builder: runs causal templates on devices, records both branches, validates the pair
(seed 002 Appendix C.1.2) and stores it."""
