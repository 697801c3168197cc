"""The learned predictive-state estimator (seed 002 Section 3.2, Appendix D): family specialists, a Joint CE
network and a unified student distilled from the specialists, trained on emukit's state-training export.

:mod:`~emukit.estimator.config` the training constants, :mod:`~emukit.estimator.data` the input serialisation
(and its information-access rule), :mod:`~emukit.estimator.losses` CE / KD / the MTD objective,
:mod:`~emukit.estimator.model` tokenizer, network and batches, :mod:`~emukit.estimator.train` the phases with
checkpoints and resume, :mod:`~emukit.estimator.infer` a checkpoint behind the ``StateEstimator`` interface,
:mod:`~emukit.estimator.evaluate` the side-by-side comparison in seed 002's Table 5 layout (held-out pairs and
the distribution-shift suites, whose rows :mod:`~emukit.estimator.suites` turns into examples). Needs the ``ml``
extra, except for scoring the rule baseline.
"""
