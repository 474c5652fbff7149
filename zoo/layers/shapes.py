"""The input-rank check that the sequence layers share."""

SEQUENCES = "inputs of rank 3 (batch, timesteps, features)"
CHARACTERS = "character ids of rank 3 (batch, words, chars)"


def check_rank_3(layer_name, input_shape, what=SEQUENCES):
    """Raises a `ValueError` naming the layer unless `input_shape` has
    rank 3; `what` says what the three axes are."""
    if len(input_shape) != 3:
        raise ValueError(
            f"{layer_name} expects {what}; received an input of shape "
            f"{tuple(input_shape)}."
        )
