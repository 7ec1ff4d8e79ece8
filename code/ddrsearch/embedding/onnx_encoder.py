"""Questions embedded without PyTorch: the pinned MiniLM exported once to ONNX, run with onnxruntime.

Importing PyTorch and sentence-transformers costs seconds (12.3 s on the shared
machine of issue 25, against 0.4 s for ``onnxruntime``, ``tokenizers`` and
``numpy``), and a search embeds one short question. So the transformer of
all-MiniLM-L6-v2 is exported once to ONNX (:func:`export_onnx`, which needs
PyTorch), and a question is then embedded with ``onnxruntime`` and the model's
own fast tokenizer (``tokenizers``) by :class:`OnnxQueryEncoder`, with the
pipeline of sentence-transformers redone in NumPy: the word pieces (at most
:data:`~ddrsearch.embedding.model.MAX_SEQ_LENGTH` = 256, ``[CLS]`` and ``[SEP]``
included), the network's last hidden states, their mean over the attention mask
(the model's ``1_Pooling``), then L2 normalisation (its ``2_Normalize``). On the
219 questions of the four shipped sets the vectors equal the sentence-transformers
ones within 1.2e-7 cosine distance (``tests/embedding/test_onnx_encoder_parity.py``
asserts 1e-5).

Where: ``<embedding cache>/onnx/<model key>_len256/`` holds ``model.onnx``,
``tokenizer.json`` (the tokenizer sentence-transformers uses, saved from the
loaded model) and ``export.json``, written last, which records the model's
SHA-256 (:attr:`~ddrsearch.embedding.model.ModelSource.sha256`), the versions
of the exporting libraries (torch, transformers, sentence-transformers, onnx),
the opset and the size and SHA-256 of the two files. An export is used only
when its ``export.json`` names the same model key and SHA-256, the same
exporting versions as installed now (read from the installed packages'
metadata, without importing them), the same format and sequence length, and
files of the recorded sizes; otherwise it is made again. The model key already
holds the weights' SHA-256, so a changed model gets a new folder.

Sources: ONNX export of PyTorch modules, https://pytorch.org/docs/stable/onnx.html
(the TorchScript-based exporter, ``dynamo=False``, opset 17); onnxruntime,
https://onnxruntime.ai/docs/api/python/api_summary.html; tokenizers,
https://huggingface.co/docs/tokenizers/api/tokenizer; the pooling of
sentence-transformers, https://www.sbert.net/docs/package_reference/sentence_transformer/models.html.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata
import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ddrsearch.embedding.model import EMBEDDING_DIM, MAX_SEQ_LENGTH, ModelSource, load_source
from ddrsearch.errors import OnnxExportError, QueryError
from ddrsearch.hashing import sha256_file

if TYPE_CHECKING:  # torch and sentence-transformers only to export
    from sentence_transformers import SentenceTransformer

__all__ = [
    "EXPORTING_PACKAGES",
    "EXPORT_FORMAT",
    "MANIFEST",
    "MAX_QUERY_CHARS",
    "OPSET",
    "PARITY_TOLERANCE",
    "OnnxQueryEncoder",
    "ensure_onnx",
    "export_dir",
    "export_onnx",
    "installed_versions",
    "open_export",
]

#: Version of the export's layout (``export.json`` and its files); a new layout means a new export.
EXPORT_FORMAT = 1
#: ONNX operator set of the exported graph.
OPSET = 17
#: Name of the file that describes an export (written last: an export without it is unfinished).
MANIFEST = "export.json"
#: The libraries whose versions shape the exported graph; a change of any of them means a new export.
EXPORTING_PACKAGES = ("torch", "transformers", "sentence-transformers", "onnx")
#: Largest cosine distance allowed between the ONNX and the sentence-transformers vector of a
#: text; checked on a few texts right after every export (the export is refused above it).
PARITY_TOLERANCE = 1e-5
#: Longest text :meth:`OnnxQueryEncoder.encode` accepts, in characters (a question; the
#: model reads only 254 word pieces of it anyway). Longer texts raise :class:`~ddrsearch.errors.QueryError`.
MAX_QUERY_CHARS = 100_000

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_CHECK_TEXTS = (
    "pipe got stuck while sliding",
    "What was the mud weight at 5,000 ft MD?",
    "POOH f/ 9,018' t/ 5,936' – lost tool face; Ünïcödé text",
    "word " * 300,
)


def export_dir(cache_dir: str | os.PathLike[str], source: ModelSource) -> Path:
    """Folder of the ONNX export of ``source`` under the embedding cache ``cache_dir``.

    Returns:
        ``<cache_dir>/onnx/<source.key>_len256`` (not created here).
    """
    return Path(cache_dir) / "onnx" / f"{source.key}_len{MAX_SEQ_LENGTH}"


def installed_versions(packages: Sequence[str] = EXPORTING_PACKAGES) -> dict[str, str | None]:
    """Installed version of each package, from its metadata (the package is not imported).

    Returns:
        ``{distribution name: version}``, ``None`` for a package that is not installed.
    """
    out: dict[str, str | None] = {}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _why_stale(folder: Path, source: ModelSource, manifest: dict[str, Any] | None) -> str | None:
    """Why the export in ``folder`` cannot be used for ``source`` (``None``: it can)."""
    if manifest is None:
        return f"no readable {MANIFEST}"
    expected = {
        "format": EXPORT_FORMAT,
        "model_key": source.key,
        "model_sha256": source.sha256,
        "max_seq_length": MAX_SEQ_LENGTH,
        "versions": installed_versions(),
    }
    for key, value in expected.items():
        if manifest.get(key) != value:
            return f"{key} is {manifest.get(key)!r} in {MANIFEST}, {value!r} now"
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != {"model.onnx", "tokenizer.json"}:
        return f"{MANIFEST} does not list model.onnx and tokenizer.json"
    for name, record in files.items():
        path = folder / name
        if not isinstance(record, dict) or not path.is_file() or path.stat().st_size != record.get("bytes"):
            return f"{name} is missing or not of the size {MANIFEST} records"
    return None


class OnnxQueryEncoder:
    """Embed texts with an ONNX export of the model: onnxruntime + tokenizers, no PyTorch.

    Args:
        folder: an export folder (:func:`export_dir`) holding ``model.onnx``,
            ``tokenizer.json`` and ``export.json``; normally obtained through
            :func:`open_export` or :func:`ensure_onnx`, which check it first.
        threads: onnxruntime threads (intra-op); 1, as for a question in
            :data:`ddrsearch.embedding.encoder.QUERY_THREADS`.

    Attributes:
        folder: the export folder; manifest: its ``export.json`` as a dict.

    Raises:
        OnnxExportError: the folder's files cannot be loaded (names the folder and what to do).
    """

    def __init__(self, folder: str | os.PathLike[str], threads: int = 1) -> None:
        import onnxruntime as ort
        import tokenizers

        self.folder = Path(folder)
        self.manifest = _read_manifest(self.folder) or {}
        try:
            tokenizer = tokenizers.Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            options = ort.SessionOptions()
            options.intra_op_num_threads = int(threads)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # errors only: warnings would land in the command's output
            session = ort.InferenceSession(str(self.folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime and tokenizers raise their own (non-DDRSearch) errors
            raise OnnxExportError(
                f"The ONNX export in {self.folder} cannot be loaded ({type(exc).__name__}: {exc}); delete the "
                f"folder and it is made again at the next question (or set DDRSEARCH_QUERY_ENCODER=torch)."
            ) from exc
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self._tokenizer = tokenizer
        self._session = session
        self._wants_types = "token_type_ids" in {i.name for i in session.get_inputs()}

    def __repr__(self) -> str:
        return f"OnnxQueryEncoder(folder={str(self.folder)!r})"

    @property
    def dim(self) -> int:
        """Length of each vector (384)."""
        return int(self.manifest.get("dim", EMBEDDING_DIM))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, one forward pass per text (no padding, so no batch effects).

        Args:
            texts: a sequence of strings (not a bare str), each at most
                :data:`MAX_QUERY_CHARS` characters.

        Returns:
            float32 array of shape ``(len(texts), 384)``, unit-length rows: the
            mean of the last hidden states over the first 256 word pieces
            (``[CLS]`` and ``[SEP]`` included), L2-normalised, as
            sentence-transformers computes it.

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
            QueryError: a text is longer than :data:`MAX_QUERY_CHARS` characters.
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a sequence of strings, not a single string; wrap it in a list")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
            if len(text) > MAX_QUERY_CHARS:
                raise QueryError(f"texts[{i}] has {len(text):,} characters; at most {MAX_QUERY_CHARS:,} are embedded "
                                 f"as a question (the model reads only the first 254 word pieces): shorten it")
            enc = self._tokenizer.encode(text)
            mask = np.asarray([enc.attention_mask], dtype=np.int64)
            feed = {"input_ids": np.asarray([enc.ids], dtype=np.int64), "attention_mask": mask}
            if self._wants_types:
                feed["token_type_ids"] = np.asarray([enc.type_ids], dtype=np.int64)
            hidden = self._session.run(None, feed)[0][0]  # (pieces, 384)
            weights = mask[0].astype(np.float32)[:, None]
            vec = (hidden * weights).sum(axis=0) / max(float(weights.sum()), 1e-9)
            out[i] = vec / max(float(np.linalg.norm(vec)), 1e-12)
        return out


def open_export(cache_dir: str | os.PathLike[str], source: ModelSource) -> OnnxQueryEncoder | None:
    """The export of ``source`` under ``cache_dir`` if it is there and current, else ``None``.

    Never imports PyTorch. "Current" is described in the module docstring.

    Raises:
        OnnxExportError: the export is current by its manifest but its files cannot be loaded.
    """
    folder = export_dir(cache_dir, source)
    if _why_stale(folder, source, _read_manifest(folder)) is not None:
        return None
    return OnnxQueryEncoder(folder)


def _pooling_mode(pooling) -> str:
    """The pooling of a sentence-transformers ``Pooling`` module, as a string (``"mean"``)."""
    mode = getattr(pooling, "pooling_mode", None)  # sentence-transformers >= 6
    if mode is None:
        mode = pooling.get_pooling_mode_str()  # earlier versions
    return str(mode)


def _check_pipeline(model: SentenceTransformer) -> None:
    """Raise :class:`OnnxExportError` unless ``model`` is Transformer -> mean Pooling -> Normalize, 256 pieces."""
    kinds = [type(module).__name__ for module in model]
    problem = None
    if kinds != ["Transformer", "Pooling", "Normalize"]:
        problem = f"its modules are {kinds}, not Transformer, Pooling, Normalize"
    elif _pooling_mode(model[1]) != "mean":
        problem = f"it pools by {_pooling_mode(model[1])!r}, not by the mean"
    elif int(model.max_seq_length) != MAX_SEQ_LENGTH:
        problem = f"its max_seq_length is {model.max_seq_length}, not {MAX_SEQ_LENGTH}"
    if problem:
        raise OnnxExportError(f"The embedding model cannot be exported to ONNX the way ddrsearch runs it: {problem}. "
                              f"Set DDRSEARCH_QUERY_ENCODER=torch to embed questions with sentence-transformers.")


def export_onnx(source: ModelSource, cache_dir: str | os.PathLike[str], *,
                model: SentenceTransformer | None = None) -> Path:
    """Export the transformer of ``source`` to ONNX under ``cache_dir`` (imports PyTorch).

    Writes ``model.onnx`` and ``tokenizer.json`` into :func:`export_dir` (each
    through a temporary file and ``os.replace``), checks the export against
    sentence-transformers on a few texts (cosine distance at most
    :data:`PARITY_TOLERANCE`), then writes ``export.json``. Another process may
    export at the same time: the last complete export wins, and an export is
    never used before its ``export.json`` is written.

    Args:
        source: the resolved model (:func:`ddrsearch.embedding.model.resolve_model`).
        cache_dir: the embedding cache folder.
        model: the loaded model, if the caller has it (default: :func:`load_source`).

    Returns:
        The export folder.

    Raises:
        OnnxExportError: the model is not Transformer -> mean Pooling -> Normalize,
            the export fails (``onnx`` missing, for instance: the message says
            what to install) or the exported graph does not give the same vectors.
    """
    if installed_versions(("onnx",))["onnx"] is None:
        raise OnnxExportError("Exporting the embedding model to ONNX needs the package 'onnx': "
                              "`pip install onnx` (or set DDRSEARCH_QUERY_ENCODER=torch).")
    import torch

    model = model if model is not None else load_source(source)
    _check_pipeline(model)
    folder = export_dir(cache_dir, source)
    folder.mkdir(parents=True, exist_ok=True)
    transformer = model[0].auto_model

    class _Hidden(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    example = model.tokenizer(["pipe got stuck while sliding"], return_tensors="pt")
    args = tuple(example[name] for name in _INPUTS)
    axes = {name: {0: "batch", 1: "pieces"} for name in (*_INPUTS, "last_hidden_state")}
    fd, tmp_onnx = tempfile.mkstemp(prefix=".model.", suffix=".onnx.tmp", dir=folder)
    os.close(fd)
    tmp_tok = Path(tmp_onnx).with_suffix(".tok.tmp")
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # the exporter's deprecation and tracer notes
            torch.onnx.export(_Hidden(transformer).eval(), args, tmp_onnx, input_names=list(_INPUTS),
                              output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET,
                              dynamo=False)
        model.tokenizer.backend_tokenizer.save(str(tmp_tok))
    except Exception as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_onnx)
        with contextlib.suppress(OSError):
            os.unlink(tmp_tok)
        if isinstance(exc, OnnxExportError):
            raise
        raise OnnxExportError(f"Exporting {source.location} to ONNX in {folder} failed ({type(exc).__name__}: "
                              f"{exc}); set DDRSEARCH_QUERY_ENCODER=torch to embed questions with "
                              f"sentence-transformers.") from exc
    os.replace(Path(tmp_onnx), folder / "model.onnx")
    os.replace(tmp_tok, folder / "tokenizer.json")

    reference = np.asarray(model.encode(list(_CHECK_TEXTS), batch_size=1, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False), dtype=np.float32)
    got = OnnxQueryEncoder(folder).encode(list(_CHECK_TEXTS))
    distance = float(np.max(1.0 - np.sum(reference * got, axis=1)))
    if not distance <= PARITY_TOLERANCE:
        raise OnnxExportError(f"The ONNX export in {folder} gives vectors {distance:.2e} in cosine distance from "
                              f"sentence-transformers' (at most {PARITY_TOLERANCE:g} allowed); it is not used. "
                              f"Set DDRSEARCH_QUERY_ENCODER=torch.")
    import onnxruntime
    import tokenizers

    manifest = {
        "format": EXPORT_FORMAT,
        "model_key": source.key,
        "model_sha256": source.sha256,
        "model_location": source.location,
        "max_seq_length": MAX_SEQ_LENGTH,
        "dim": int(got.shape[1]),
        "pooling": "mean over the attention mask, then L2 normalisation",
        "opset": OPSET,
        "versions": installed_versions(),
        "runtime_versions": {"onnxruntime": onnxruntime.__version__, "tokenizers": tokenizers.__version__},
        "parity_check": {"texts": len(_CHECK_TEXTS), "max_cosine_distance": distance},
        "files": {name: {"bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name)}
                  for name in ("model.onnx", "tokenizer.json")},
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }
    fd, tmp_manifest = tempfile.mkstemp(prefix=".export.", suffix=".json.tmp", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
    os.replace(Path(tmp_manifest), folder / MANIFEST)
    return folder


def ensure_onnx(source: ModelSource, cache_dir: str | os.PathLike[str], *,
                model: SentenceTransformer | None = None) -> OnnxQueryEncoder:
    """The current export of ``source`` under ``cache_dir``, exported first when missing or stale.

    Only an export imports PyTorch; a current export is opened without it.

    Raises:
        OnnxExportError: see :func:`export_onnx` and :class:`OnnxQueryEncoder`.
    """
    encoder = open_export(cache_dir, source)
    if encoder is not None:
        return encoder
    folder = export_onnx(source, cache_dir, model=model)
    return OnnxQueryEncoder(folder)
