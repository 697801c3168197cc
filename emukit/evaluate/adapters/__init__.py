"""Model adapters: one interface (:class:`ModelAdapter`), a registry by SPEC prefix (:func:`create_adapter`).

``openai:BASE_URL#MODEL`` (or ``http(s)://...``), ``hf:LOCAL_PATH``, ``ref:copy-current``, ``ref:surface``.
"""

from emukit.evaluate.adapters.base import (
    ModelAdapter,
    Prediction,
    PredictionContext,
    create_adapter,
    extract_html,
    prediction_from_text,
    register,
    registered_prefixes,
)

__all__ = ["ModelAdapter", "Prediction", "PredictionContext", "create_adapter", "extract_html",
           "prediction_from_text", "register", "registered_prefixes"]
