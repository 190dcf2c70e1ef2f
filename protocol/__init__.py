"""Rollhouse protocol package."""
