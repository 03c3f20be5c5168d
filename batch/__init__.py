"""briefloop: nightly batch writing through a writer-critic loop with a person in the loop."""

__version__ = "0.1.0"
