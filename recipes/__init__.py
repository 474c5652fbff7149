"""Runnable training recipes on real data.

Sequence tagging, classification and sequence-to-sequence recipes arrive
with their issues; `make demo` runs `zoo.demo` until then.
"""
