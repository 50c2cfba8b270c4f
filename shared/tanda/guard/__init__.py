"""The policy guard stage."""
