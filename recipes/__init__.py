"""Runnable training recipes (sequence tagging, classification, seq2seq) arrive with their issue."""
