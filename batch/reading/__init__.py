"""What a brief gives that code can be sure of, read the same way in a brief and a text:
figures in one canonical form (`figures`), what a correction takes back and what is only
a message's frame (`corrections`), an item's values and whether it is plainly a fact for
the readers (`values`), and what each figure is tied to (`ties`). Standard library only:
the checks in batch.judging read through it."""
