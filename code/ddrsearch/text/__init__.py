"""The text wing: how words are cut, rig shorthand expanded, misspellings noticed and questions rewritten.

Modules: ``words`` (normalising and the word rules), ``tokenizer`` (the one
tokenizer: words, expansion, stop words, stems), ``glossary`` (rig
abbreviations), ``spelling`` (words no report prints), ``rewriting`` (the
asker's shorthand, the question's framing, rig-terms tables).
Imports the data wing (resource files) and the foundations.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "DEFAULT_STOPWORDS": "words",
    "normalize": "words",
    "split_words": "words",
    "make_tokenizer": "tokenizer",
    "tokenize": "tokenizer",
    "Glossary": "glossary",
    "default_glossary": "glossary",
    "expand_abbreviations": "glossary",
    "Spelling": "spelling",
    "spelling_notes": "spelling",
    "load_rig_terms": "rewriting",
    "rewrite_query": "rewriting",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
