"""How a lesson's texts are shown: its comments in the learner's language
(comments.py) and its numbers in course order (numbers.py). Plain text in,
plain text out; no Qt, so the engine's lesson tests can use it too."""
