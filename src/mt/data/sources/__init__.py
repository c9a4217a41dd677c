"""The recipe's data from its public sources (`mt download --recipe`): `registry` names each
source, `http` downloads resumably, `fetch` downloads, converts, checks and moves into place, and
one small module a conversion (`archives`, `heldout`, `domains`, `libreoffice`, `corpora`,
`wiktionary`); `digests` checks what they give.
"""
