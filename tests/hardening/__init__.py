"""Hostile inputs (issue 18): generated files and values,
each run with bounds on time and memory.
"""
