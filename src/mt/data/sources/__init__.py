"""The recipe's data from its public sources (`mt download --recipe`): `registry` names each source
(addresses, pinned versions, SHA-256 digests, licences, the files it gives under a data root laid
out like ../shared/data), `http` downloads resumably, `fetch` downloads, converts, checks and moves
into place, and one small module a conversion: `archives` (zip, tar and .deb members),
`heldout` (the documents ../shared leaves out), `domains`, `libreoffice`, `corpora` (Tatoeba,
XQuAD), `wiktionary` (the dictionary); `digests` checks what they give.
"""
