"""The G2P recipe's old name: `recipes.seq2seq` is `recipes.g2p`.

    python -m recipes.seq2seq ...   # the same as python -m recipes.g2p ...

Kept so that commands and scripts written before the rename still run;
every name (`recipes.seq2seq.run`, `load`, `Config`, `main`, ...) is
`recipes.g2p`'s, loaded on first use (`recipes.lazy`). New code should
use `recipes.g2p`.
"""

from recipes import lazy

__getattr__ = lazy.exports("recipes.g2p", ("config", "task", "cli"))
