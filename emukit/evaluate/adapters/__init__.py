"""Model adapters: one interface (:class:`ModelAdapter`), a registry by SPEC prefix (:func:`create_adapter`).
Adding an adapter is one new module here (or in your own package, named by an ``emukit.model_adapters``
entry point) whose class is decorated with :func:`register`.

``openai:BASE_URL#MODEL`` (or ``http(s)://...``), ``hf:LOCAL_PATH``, ``ref:copy-current``, ``ref:surface``.
"""

from emukit.evaluate.adapters.base import (
    ADAPTERS,
    ModelAdapter,
    Prediction,
    PredictionContext,
    create_adapter,
    extract_html,
    prediction_from_text,
    register,
    registered_prefixes,
)

__all__ = ["ADAPTERS", "ModelAdapter", "Prediction", "PredictionContext", "create_adapter", "extract_html",
           "prediction_from_text", "register", "registered_prefixes"]
