"""The metrics emukit ships, one registered function each (:mod:`emukit.evaluate.metric`); every module here
is imported the first time the registry is read."""
