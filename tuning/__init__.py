"""keras-tuner hypermodels and the search CLI (arrive with their issue)."""
