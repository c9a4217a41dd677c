"""SentencePiece side of `make bench-peer`, run by eole's own Python (.venv-eole has
sentencepiece; mt's environment does not need it).

    .venv-eole/bin/python benchmarks/peers/peer_spm.py train TEXT PREFIX VOCAB
    .venv-eole/bin/python benchmarks/peers/peer_spm.py encode PREFIX.model IN OUT
    .venv-eole/bin/python benchmarks/peers/peer_spm.py decode PREFIX.model IN OUT
    .venv-eole/bin/python benchmarks/peers/peer_spm.py vocab PREFIX.model OUT

`vocab` writes the pieces without SentencePiece's <unk>, <s> and </s>: eole adds its own four
specials (<unk>, <blank>, <s>, </s>), so a model trained with VOCAB - 1 pieces gives eole a
vocabulary of VOCAB labels, the size mt's tokenizers have.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sentencepiece as spm


def main(argv: list[str]) -> int:
    command, *rest = argv
    if command == "train":
        text, prefix, vocab = rest
        spm.SentencePieceTrainer.train(
            input=text,
            model_prefix=prefix,
            vocab_size=int(vocab),
            character_coverage=1.0,
            model_type="unigram",
            num_threads=1,
            minloglevel=2,
        )
        return 0
    model = spm.SentencePieceProcessor(model_file=rest[0])
    if command == "vocab":
        pieces = [model.id_to_piece(i) for i in range(model.get_piece_size())]
        skip = {"<unk>", "<s>", "</s>"}
        Path(rest[1]).write_text("".join(f"{p}\n" for p in pieces if p not in skip))
        return 0
    lines = Path(rest[1]).read_text(encoding="utf-8").splitlines()
    if command == "encode":
        out = [" ".join(model.encode(line, out_type=str)) for line in lines]
    else:
        out = [model.decode(line.split()) for line in lines]
    Path(rest[2]).write_text("".join(f"{line}\n" for line in out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
