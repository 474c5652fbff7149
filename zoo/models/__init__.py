"""Registered variants, one module per cell family; importing registers."""

from zoo.models import gru  # noqa: F401
from zoo.models import lstm  # noqa: F401
from zoo.models import simple_rnn  # noqa: F401
from zoo.models.sizes import SIZES  # noqa: F401
