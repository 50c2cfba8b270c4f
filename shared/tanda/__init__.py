"""tanda — a grounded-answer API that marks every statement with what verified it."""

__version__ = "0.1.0"
