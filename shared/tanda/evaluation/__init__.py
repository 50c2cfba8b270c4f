"""Measured quality of the checks on public data: the strict judge (``tanda eval judge``) and the
numbers check on real tables (``tanda eval numbers``), issue 17; docs/evaluation.md.

This package sits with the surfaces (beside ``cli``): it runs the judge stage through its public
function on whichever model adapter the settings choose, and reads data files.
"""
