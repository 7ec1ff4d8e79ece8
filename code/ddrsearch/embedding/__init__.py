"""The embedding wing: which copy of the model (checked by SHA-256) and the vectors of texts and questions.

Modules: ``model`` (resolving and loading all-MiniLM-L6-v2), ``encoder``
(:class:`Embedder`: vectors and their cache), ``onnx_encoder`` (questions
embedded without PyTorch, from a one-time ONNX export of the model). Imports the foundations only.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "MODEL_NAME": "model",
    "ModelSource": "model",
    "OFFICIAL_SHA256": "model",
    "resolve_model": "model",
    "Embedder": "encoder",
    "OnnxQueryEncoder": "onnx_encoder",
    "ensure_onnx": "onnx_encoder",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
