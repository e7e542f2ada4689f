"""Attention Is All You Need, section by section: a literate course and a library that reproduces the Transformer on one machine

Modules:

- `transformer_nb.pretrained`: The trained models that come with the course: what a published file holds (float16 weights, tokenizer, config and where they came from), how to make one from a run, and `load_pretrained`, which gives a learner a real translator in the first minute."""

__version__ = "0.1.0"
