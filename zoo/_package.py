"""The Keras registration package written into every saved model.

It is part of the saved-file format: if it ever changes, register the
layers under the old name too, or old `.keras` files stop loading.
"""

PACKAGE = "zoo"
